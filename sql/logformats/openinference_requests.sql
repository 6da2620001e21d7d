-- OpenInference: a request is a trace. Its root span (no parent) gives the question
-- (input.value), the answer (output.value), the time and the session; the trace's first LLM
-- span naming a model (by file and line) gives the model.
WITH models AS (
    SELECT trace_id, arg_min(model_value, struct_pack(file := file, line := line)) AS model
    FROM openinference_spans
    WHERE model_value IS NOT NULL
    GROUP BY trace_id
)
SELECT
    root.file,
    root.line,
    root.trace_id                                           AS request_id,
    root.session_value                                      AS session_id,
    root.start_time                                         AS ts_text,
    root.input_value                                        AS question,
    root.output_value                                       AS answer,
    m.model,
    CAST(NULL AS VARCHAR)                                   AS finish_reason,
    CAST(NULL AS VARCHAR)                                   AS refused_text,
    CAST(NULL AS VARCHAR)                                   AS metadata,
    root.record                                             AS raw
FROM openinference_spans AS root
LEFT JOIN models AS m ON m.trace_id = root.trace_id
WHERE root.parent_id IS NULL
