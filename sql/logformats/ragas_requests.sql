-- RAGAS evaluation datasets (JSONL or Parquet), one sample a record: user_input,
-- retrieved_contexts, retrieved_context_ids, response, reference; or the older question,
-- contexts, answer, ground_truth. A sample has no id of its own: request_id is its own id
-- field when present, else a hash of the record, so re-importing the same sample adds nothing.
SELECT
    file,
    line,
    coalesce(record ->> 'request_id', record ->> 'id', 'ragas-' || md5(CAST(record AS VARCHAR))) AS request_id,
    NULL::VARCHAR                                                   AS session_id,
    NULL::VARCHAR                                                   AS ts_text,
    coalesce(record ->> 'user_input', record ->> 'question')        AS question,
    coalesce(record ->> 'response', record ->> 'answer')            AS answer,
    NULL::VARCHAR                                                   AS model,
    NULL::VARCHAR                                                   AS finish_reason,
    NULL::VARCHAR                                                   AS refused_text,
    json_object('reference', coalesce(record ->> 'reference', record ->> 'ground_truth')) AS metadata,
    record                                                          AS raw
FROM log_raw
