-- OpenInference / Phoenix spans, one span a record (JSONL, or a Parquet span export whose
-- columns are dotted names), with the fields the other openinference_*.sql files read.
-- Attributes may be flat ("input.value") or nested ({"input": {"value": ...}}).
WITH spans AS (
    SELECT
        file,
        line,
        record,
        json_extract(record, '$.attributes')                                             AS attrs,
        coalesce(json_extract_string(record, '$.context.trace_id'),
                 json_extract_string(record, '$."context.trace_id"'))                    AS trace_id,
        nullif(coalesce(json_extract_string(record, '$.parent_id'),
                        json_extract_string(record, '$.parent_span_id')), '')            AS parent_id,
        coalesce(json_extract_string(record, '$.span_kind'),
                 json_extract_string(record, '$."attributes.openinference.span.kind"'),
                 json_extract_string(record, '$.attributes."openinference.span.kind"'),
                 json_extract_string(record, '$.attributes.openinference.span.kind'))    AS kind,
        json_extract_string(record, '$.start_time')                                      AS start_time
    FROM log_raw
)
SELECT
    *,
    coalesce(json_extract_string(attrs, '$."input.value"'), json_extract_string(attrs, '$.input.value'),
             json_extract_string(record, '$."attributes.input.value"'))                  AS input_value,
    coalesce(json_extract_string(attrs, '$."output.value"'), json_extract_string(attrs, '$.output.value'),
             json_extract_string(record, '$."attributes.output.value"'))                 AS output_value,
    coalesce(json_extract_string(attrs, '$."session.id"'), json_extract_string(attrs, '$.session.id'),
             json_extract_string(record, '$."attributes.session.id"'))                   AS session_value,
    coalesce(json_extract_string(attrs, '$."llm.model_name"'), json_extract_string(attrs, '$.llm.model_name'),
             json_extract_string(record, '$."attributes.llm.model_name"'))               AS model_value
FROM spans
