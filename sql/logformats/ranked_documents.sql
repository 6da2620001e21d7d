-- Retrieved documents of the formats that log spans (openinference, otlp): one row per row of
-- log_documents(file, line, request_id, start_time, doc_index, chunk_id, score, content,
-- id_source, metadata), ranked within its request by span start time, then document order.
SELECT
    file,
    line,
    request_id,
    CAST(row_number() OVER (PARTITION BY request_id ORDER BY start_time, doc_index) AS INTEGER) AS rank,
    chunk_id,
    score,
    content,
    id_source,
    metadata
FROM log_documents
