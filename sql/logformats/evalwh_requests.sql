-- evalwh JSONL, one request a line: request_id, ts (ISO 8601), session_id, question, answer,
-- refused, retrieved [{chunk_id, score}], cited [{chunk_id, quote}]; model, finish_reason and
-- metadata when present. One row per line of log_raw.
SELECT
    file,
    line,
    record ->> 'request_id'                        AS request_id,
    record ->> 'session_id'                        AS session_id,
    record ->> 'ts'                                AS ts_text,
    record ->> 'question'                          AS question,
    record ->> 'answer'                            AS answer,
    record ->> 'model'                             AS model,
    record ->> 'finish_reason'                     AS finish_reason,
    record ->> 'refused'                           AS refused_text,
    record -> 'metadata'                           AS metadata,
    record                                         AS raw
FROM log_raw
