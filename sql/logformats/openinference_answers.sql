-- OpenInference: the answer of each trace, the root span's output.value; its [n] markers are
-- the citations (marker_citations.sql).
SELECT file, line, trace_id AS request_id, output_value AS answer
FROM openinference_spans
WHERE parent_id IS NULL
