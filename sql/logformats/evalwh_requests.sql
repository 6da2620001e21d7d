-- evalwh JSONL, one request a line: request_id, ts (ISO 8601), session_id, question, answer,
-- refused, retrieved [{chunk_id, score}], cited [{chunk_id, quote}]; model, finish_reason and
-- metadata when present. One row per line of log_raw (fields from evalwh_spans).
SELECT
    file,
    line,
    r.request_id                                   AS request_id,
    r.session_id                                   AS session_id,
    r.ts                                           AS ts_text,
    r.question                                     AS question,
    r.answer                                       AS answer,
    r.model                                        AS model,
    r.finish_reason                                AS finish_reason,
    r.refused                                      AS refused_text,
    r.metadata                                     AS metadata
FROM evalwh_spans
