-- OpenInference / Phoenix spans: one row per record that is no span (file, line, error): a span
-- names its trace (context.trace_id, or a Parquet export's "context.trace_id" column). DuckDB only:
-- Spark imports do not check.
SELECT file, line, 'not an OpenInference span: it has no context.trace_id' AS error
FROM log_raw
WHERE coalesce(json_extract_string(record, '$.context.trace_id'),
               json_extract_string(record, '$."context.trace_id"')) IS NULL
