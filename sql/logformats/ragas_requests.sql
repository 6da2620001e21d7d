-- RAGAS samples (ragas_samples) as requests: the question is user_input, the answer response
-- (its [n] markers are its citations: marker_citations.sql); metadata keeps the reference, the
-- reference contexts and their ids, and evaluate()'s metrics. A sample records no session, time,
-- model, finish reason or refusal: NULL.
SELECT
    file,
    line,
    request_id,
    CAST(NULL AS VARCHAR)                                                         AS session_id,
    CAST(NULL AS VARCHAR)                                                         AS ts_text,
    user_input                                                                    AS question,
    response                                                                      AS answer,
    CAST(NULL AS VARCHAR)                                                         AS model,
    CAST(NULL AS VARCHAR)                                                         AS finish_reason,
    CAST(NULL AS VARCHAR)                                                         AS refused_text,
    json_object('reference', reference, 'reference_contexts', reference_contexts,
                'reference_context_ids', reference_context_ids, 'metrics', metrics)  AS metadata,
    record                                                                        AS raw
FROM ragas_samples
