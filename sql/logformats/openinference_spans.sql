-- OpenInference / Phoenix span exports, one span a record: JSON lines (a span's JSON, as Phoenix's
-- client and REST API give it) or Parquet (the spans dataframe, whose columns are dotted names:
-- "context.trace_id", "attributes.input.value"). One row per span, the shape trace_*.sql read
-- (trace_spans); its attributes, flat ("input.value") or nested ({"input": {"value": ...}}), are
-- listed by openinference_attributes.sql.
SELECT
    file,
    line,
    'span'                                                                              AS signal,
    coalesce(json_extract_string(record, '$.context.trace_id'),
             json_extract_string(record, '$."context.trace_id"'))                       AS trace_id,
    coalesce(json_extract_string(record, '$.context.span_id'),
             json_extract_string(record, '$."context.span_id"'))                        AS span_id,
    nullif(coalesce(json_extract_string(record, '$.parent_id'),
                    json_extract_string(record, '$.parent_span_id')), '')               AS parent_id,
    json_extract_string(record, '$.start_time')                                         AS start_time,
    struct_pack(file := file, line := line, resource := 1, scope := 1, item := 1)       AS item_order,
    json_extract(record, '$.attributes')                                                AS attributes,
    record                                                                              AS raw
FROM log_raw
