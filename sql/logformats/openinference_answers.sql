-- OpenInference: the answer of each trace, the root span's output.value; its [n] markers are
-- the citations (marker_citations.sql).
SELECT
    file,
    line,
    coalesce(record -> 'context' ->> 'trace_id', record ->> '$."context.trace_id"') AS request_id,
    coalesce(record -> 'attributes' ->> '$."output.value"', record -> 'attributes' -> 'output' ->> 'value',
             record ->> '$."attributes.output.value"')                            AS answer
FROM log_raw
WHERE nullif(coalesce(record ->> 'parent_id', record ->> 'parent_span_id'), '') IS NULL
