-- Citations as [n] markers in an answer, for formats that log no citations of their own
-- (otlp, openinference, ragas, deepeval): one row per marker in the answer of a request of
-- norm_requests, n numbering the request's retrieved documents in rank order (1-based). A number
-- past the last document is out_of_range (one of more than nine digits too, its leading zeros aside:
-- no request retrieves a billion documents); a document without an id is unresolved. A marker gives
-- no quote and no location.
WITH found AS (
    SELECT file, line, request_id, regexp_extract_all(coalesce(answer, ''), '\[(\d+)\]', 1) AS numbers
    FROM norm_requests
),
markers AS (
    -- each marker with its 1-based position, as one struct: one unnest, which Spark also allows
    SELECT file, line, request_id,
           unnest(list_transform(range(1, array_length(numbers) + 1),
                                 lambda i: struct_pack(n := CASE WHEN length(regexp_replace(numbers[i], '^0+', '')) <= 9
                                                                THEN CAST(numbers[i] AS INTEGER) END,
                                                       at := i))) AS marker
    FROM found
)
SELECT
    m.file,
    m.line,
    m.request_id,
    CAST(m.marker.at AS INTEGER)                                AS position,
    d.chunk_id,
    CAST(NULL AS VARCHAR)                                        AS quote,
    CASE WHEN d.chunk_id IS NOT NULL THEN 'resolved'
         WHEN d.request_id IS NOT NULL THEN 'unresolved'
         ELSE 'out_of_range' END                                 AS resolution,
    CAST(NULL AS JSON)                                           AS location
FROM markers AS m
LEFT JOIN norm_retrievals AS d ON d.request_id = m.request_id AND d.rank = m.marker.n
