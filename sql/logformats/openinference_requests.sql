-- OpenInference: a request is a trace. Its root span (no parent) gives the question
-- (input.value), the answer (output.value), the time and the session; the trace's LLM span
-- gives the model.
SELECT
    root.file,
    root.line,
    root.trace_id                                           AS request_id,
    root.session_value                                      AS session_id,
    root.start_time                                         AS ts_text,
    root.input_value                                        AS question,
    root.output_value                                       AS answer,
    (SELECT any_value(l.model_value) FROM openinference_spans AS l
     WHERE l.trace_id = root.trace_id AND l.model_value IS NOT NULL)   AS model,
    NULL::VARCHAR                                           AS finish_reason,
    NULL::VARCHAR                                           AS refused_text,
    NULL::JSON                                              AS metadata,
    root.record                                             AS raw
FROM openinference_spans AS root
WHERE root.parent_id IS NULL
