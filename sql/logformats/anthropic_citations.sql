-- Anthropic: one row per citation in the response's text blocks, in order. char_location and
-- content_block_location name a document by document_index, search_result_location a search
-- result by search_result_index (or its source); the index is resolved against the request's
-- blocks: resolved, ambiguous (two passages share that id), unresolved (the passage has no
-- id) or out_of_range (no such passage). cited_text is kept as the quote.
WITH exchanges AS (
    SELECT file, line,
           coalesce(json_extract_string(record, '$.request_id'), json_extract_string(record, '$.response.id'))
               AS request_id,
           json_transform(record, '{"response": {"content": ["JSON"]}}').response.content AS content
    FROM log_raw
),
numbered_blocks AS (
    -- each block with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, request_id,
           unnest(list_transform(range(1, array_length(content) + 1),
                                 lambda i: struct_pack(block := content[i], i := i))) AS b
    FROM exchanges
),
block_cites AS (
    SELECT file, line, request_id, b.i AS block_no,
           json_transform(b.block, '{"citations": ["JSON"]}').citations AS block_citations
    FROM numbered_blocks
),
numbered_cites AS (
    SELECT file, line, request_id, block_no,
           unnest(list_transform(range(1, array_length(block_citations) + 1),
                                 lambda i: struct_pack(cite := block_citations[i], i := i))) AS c
    FROM block_cites
),
targets AS (
    SELECT
        file, line, request_id,
        CAST(row_number() OVER (PARTITION BY request_id ORDER BY block_no, c.i) AS INTEGER) AS position,
        c.cite,
        CASE WHEN json_extract_string(c.cite, '$.type') = 'search_result_location' THEN 'search_result'
             ELSE 'document' END                                                          AS kind,
        TRY_CAST(coalesce(json_extract_string(c.cite, '$.document_index'),
                          json_extract_string(c.cite, '$.search_result_index')) AS INTEGER) AS target_index
    FROM numbered_cites
),
id_counts AS (
    SELECT request_id, chunk_id, count(*) AS n FROM anthropic_spans GROUP BY request_id, chunk_id
)
SELECT
    t.file,
    t.line,
    t.request_id,
    t.position,
    coalesce(s.chunk_id, CASE WHEN t.kind = 'search_result' THEN json_extract_string(t.cite, '$.source') END)
                                                                                          AS chunk_id,
    json_extract_string(t.cite, '$.cited_text')                                           AS quote,
    CASE
        WHEN s.request_id IS NULL AND t.kind = 'search_result' AND json_extract_string(t.cite, '$.source') IS NOT NULL
            THEN 'resolved'
        WHEN s.request_id IS NULL THEN 'out_of_range'
        WHEN s.chunk_id IS NULL THEN 'unresolved'
        WHEN ic.n > 1 THEN 'ambiguous'
        ELSE 'resolved'
    END                                                                                   AS resolution
FROM targets AS t
LEFT JOIN anthropic_spans AS s
    ON s.request_id = t.request_id AND s.kind = t.kind AND s.kind_index = t.target_index
LEFT JOIN id_counts AS ic
    ON ic.request_id = t.request_id AND ic.chunk_id = s.chunk_id
