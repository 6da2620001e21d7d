-- OpenInference / Phoenix spans, one span a record (JSONL, or a Parquet span export whose
-- columns are dotted names), with the fields the other openinference_*.sql files read.
-- Attributes may be flat ("input.value") or nested ({"input": {"value": ...}}).
WITH spans AS (
    SELECT
        file,
        line,
        record,
        coalesce(record -> 'attributes', '{}')                                           AS attrs,
        coalesce(record -> 'context' ->> 'trace_id', record ->> '$."context.trace_id"')  AS trace_id,
        nullif(coalesce(record ->> 'parent_id', record ->> 'parent_span_id'), '')       AS parent_id,
        coalesce(record ->> 'span_kind', record ->> '$."attributes.openinference.span.kind"',
                 record -> 'attributes' ->> '$."openinference.span.kind"',
                 record -> 'attributes' -> 'openinference' -> 'span' ->> 'kind')         AS kind,
        record ->> 'start_time'                                                          AS start_time
    FROM log_raw
)
SELECT
    *,
    coalesce(attrs ->> '$."input.value"', attrs -> 'input' ->> 'value', record ->> '$."attributes.input.value"')
        AS input_value,
    coalesce(attrs ->> '$."output.value"', attrs -> 'output' ->> 'value', record ->> '$."attributes.output.value"')
        AS output_value,
    coalesce(attrs ->> '$."session.id"', attrs -> 'session' ->> 'id', record ->> '$."attributes.session.id"')
        AS session_value,
    coalesce(attrs ->> '$."llm.model_name"', attrs -> 'llm' ->> 'model_name', record ->> '$."attributes.llm.model_name"')
        AS model_value
FROM spans
