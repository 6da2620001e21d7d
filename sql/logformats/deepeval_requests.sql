-- DeepEval test cases (deepeval_cases) as requests: the question is input, the answer
-- actual_output (its [n] markers are its citations: marker_citations.sql). A case has no id of its
-- own: request_id is 'deepeval-' and the MD5 of its parsed fields (input, actual_output,
-- expected_output, retrieval_context, context), so a golden and its test result are one request,
-- and identical cases of one record count once. metadata keeps the expected output, the context,
-- the case's name, the chunk ids of its retrieval context (its metadata's retrieval_context_ids),
-- and a result's success and each metric's name, score, threshold, success and reason (the case as
-- logged, with the rest of its metadata, is raw). A case records no session, time, model, finish
-- reason or refusal: NULL.
SELECT
    file,
    line,
    request_id,
    CAST(NULL AS VARCHAR)                                                         AS session_id,
    CAST(NULL AS VARCHAR)                                                         AS ts_text,
    input                                                                         AS question,
    actual_output                                                                 AS answer,
    CAST(NULL AS VARCHAR)                                                         AS model,
    CAST(NULL AS VARCHAR)                                                         AS finish_reason,
    CAST(NULL AS VARCHAR)                                                         AS refused_text,
    json_object('expected_output', expected_output, 'context', context, 'name', name,
                'retrieval_context_ids', json_transform(metadata, '{"retrieval_context_ids": ["VARCHAR"]}')
                                             .retrieval_context_ids,
                'success', TRY_CAST(success AS BOOLEAN),
                'metrics', json_transform(metrics_data, '[{"name": "VARCHAR", "score": "DOUBLE", "threshold": "DOUBLE",
                                                          "success": "BOOLEAN", "reason": "VARCHAR"}]'))
                                                                                  AS metadata,
    c                                                                             AS raw
FROM (SELECT *, row_number() OVER (PARTITION BY file, line, request_id ORDER BY case_no) AS copy
      FROM deepeval_cases) AS d
WHERE copy = 1
