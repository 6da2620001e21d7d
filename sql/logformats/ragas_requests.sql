-- RAGAS evaluation datasets (JSONL or Parquet), one sample a record: user_input,
-- retrieved_contexts, retrieved_context_ids, response, reference; or the older question,
-- contexts, answer, ground_truth. A sample has no id of its own: request_id is its own id
-- field when present, else a hash of the record, so re-importing the same sample adds nothing.
SELECT
    file,
    line,
    coalesce(json_extract_string(record, '$.request_id'), json_extract_string(record, '$.id'),
             'ragas-' || md5(CAST(record AS VARCHAR)))                            AS request_id,
    CAST(NULL AS VARCHAR)                                                         AS session_id,
    CAST(NULL AS VARCHAR)                                                         AS ts_text,
    coalesce(json_extract_string(record, '$.user_input'), json_extract_string(record, '$.question'))
                                                                                  AS question,
    coalesce(json_extract_string(record, '$.response'), json_extract_string(record, '$.answer'))
                                                                                  AS answer,
    CAST(NULL AS VARCHAR)                                                         AS model,
    CAST(NULL AS VARCHAR)                                                         AS finish_reason,
    CAST(NULL AS VARCHAR)                                                         AS refused_text,
    json_object('reference', coalesce(json_extract_string(record, '$.reference'),
                                      json_extract_string(record, '$.ground_truth'))) AS metadata,
    record                                                                        AS raw
FROM log_raw
