-- OpenInference: citations are the [n] markers of the root span's answer, n numbering the
-- trace's retrieved documents in rank order (1-based); a number past the last is out_of_range.
WITH roots AS (
    SELECT
        file,
        line,
        coalesce(record -> 'context' ->> 'trace_id', record ->> '$."context.trace_id"') AS trace_id,
        coalesce(record -> 'attributes' ->> '$."output.value"', record -> 'attributes' -> 'output' ->> 'value',
                 record ->> '$."attributes.output.value"')                            AS answer
    FROM log_raw
    WHERE nullif(coalesce(record ->> 'parent_id', record ->> 'parent_span_id'), '') IS NULL
),
markers AS (
    SELECT r.file, r.line, r.trace_id, CAST(m.n AS INTEGER) AS n, CAST(m.i AS INTEGER) AS position
    FROM roots AS r, unnest(regexp_extract_all(coalesce(r.answer, ''), '\[(\d+)\]', 1)) WITH ORDINALITY AS m(n, i)
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
