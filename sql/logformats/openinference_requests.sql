-- OpenInference / Phoenix spans, one span a record (JSONL, or a Parquet span export whose
-- columns are dotted names). Attributes may be flat ("input.value") or nested
-- ({"input": {"value": ...}}). A request is a trace: its root span (no parent) gives the
-- question (input.value), the answer (output.value), the time and the session; the trace's
-- LLM span gives the model.
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
),
valued AS (
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
)
SELECT
    root.file,
    root.line,
    root.trace_id                                           AS request_id,
    root.session_value                                      AS session_id,
    root.start_time                                         AS ts_text,
    root.input_value                                        AS question,
    root.output_value                                       AS answer,
    (SELECT any_value(l.model_value) FROM valued AS l
     WHERE l.trace_id = root.trace_id AND l.model_value IS NOT NULL)   AS model,
    NULL::VARCHAR                                           AS finish_reason,
    NULL::VARCHAR                                           AS refused_text,
    NULL::JSON                                              AS metadata,
    root.record                                             AS raw
FROM valued AS root
WHERE root.parent_id IS NULL
