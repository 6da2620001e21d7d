-- Citations as [n] markers in an answer, for formats that log no citations of their own
-- (openinference, otlp): one row per marker of log_answers(file, line, request_id, answer),
-- n numbering the request's retrieved documents in rank order (1-based). A number past the
-- last document is out_of_range; a document without an id is unresolved.
WITH markers AS (
    SELECT a.file, a.line, a.request_id, CAST(m.n AS INTEGER) AS n, CAST(m.i AS INTEGER) AS position
    FROM log_answers AS a, unnest(regexp_extract_all(coalesce(a.answer, ''), '\[(\d+)\]', 1)) WITH ORDINALITY AS m(n, i)
)
SELECT
    m.file,
    m.line,
    m.request_id,
    m.position,
    d.chunk_id,
    NULL::VARCHAR                                                AS quote,
    CASE WHEN d.chunk_id IS NOT NULL THEN 'resolved'
         WHEN d.request_id IS NOT NULL THEN 'unresolved'
         ELSE 'out_of_range' END                                 AS resolution
FROM markers AS m
LEFT JOIN norm_retrievals AS d ON d.request_id = m.request_id AND d.rank = m.n
