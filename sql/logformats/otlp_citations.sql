-- OTLP JSON: citations are the [n] markers of the root span's output.value, n numbering the
-- trace's retrieved documents in rank order; a number past the last is out_of_range.
WITH answers AS (
    SELECT file, line, trace_id, text_value AS answer
    FROM otlp_spans
    WHERE parent_id IS NULL AND key = 'output.value'
),
markers AS (
    SELECT a.file, a.line, a.trace_id, CAST(m.n AS INTEGER) AS n, CAST(m.i AS INTEGER) AS position
    FROM answers AS a, unnest(regexp_extract_all(coalesce(a.answer, ''), '\[(\d+)\]', 1)) WITH ORDINALITY AS m(n, i)
)
SELECT
    m.file,
    m.line,
    m.trace_id                                                   AS request_id,
    m.position,
    d.chunk_id,
    NULL::VARCHAR                                                AS quote,
    CASE WHEN d.chunk_id IS NOT NULL THEN 'resolved'
         WHEN d.request_id IS NOT NULL THEN 'unresolved'
         ELSE 'out_of_range' END                                 AS resolution
FROM markers AS m
LEFT JOIN norm_retrievals AS d ON d.request_id = m.trace_id AND d.rank = m.n
