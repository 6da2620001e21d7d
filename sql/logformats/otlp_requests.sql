-- OTLP JSON: a request is a trace. Its root span gives the time, the question (input.value,
-- else the trace's gen_ai.retrieval.query.text), the answer (output.value) and the session
-- (session.id); the model is the trace's gen_ai.request.model or gen_ai.response.model. Where a
-- trace holds a key more than once, the first written counts.
WITH roots AS (
    SELECT DISTINCT file, line, trace_id, start_time, span
    FROM otlp_spans
    WHERE parent_id IS NULL
),
trace_values AS (
    SELECT
        trace_id,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.retrieval.query.text')           AS query_text,
        arg_min(text_value, attribute_order) FILTER (WHERE key IN ('gen_ai.request.model', 'gen_ai.response.model'))
                                                                                                          AS model,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.response.finish_reasons')        AS finish_reason,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'input.value' AND parent_id IS NULL)     AS input_value,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'output.value' AND parent_id IS NULL)    AS output_value,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'session.id' AND parent_id IS NULL)      AS session_value
    FROM otlp_spans
    WHERE text_value IS NOT NULL
    GROUP BY trace_id
)
SELECT
    r.file,
    r.line,
    r.trace_id                                  AS request_id,
    v.session_value                             AS session_id,
    r.start_time                                AS ts_text,
    coalesce(v.input_value, v.query_text)       AS question,
    v.output_value                              AS answer,
    v.model,
    v.finish_reason,
    CAST(NULL AS VARCHAR)                       AS refused_text,
    CAST(NULL AS VARCHAR)                       AS metadata,
    r.span                                      AS raw
FROM roots AS r
LEFT JOIN trace_values AS v ON v.trace_id = r.trace_id
