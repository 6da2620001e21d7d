-- Anthropic: one request per logged exchange. The question is the text of the last user
-- message; the answer the response's text blocks joined; model and stop_reason from the response.
WITH exchanges AS (
    SELECT file, line, record, coalesce(record ->> 'request_id', record -> 'response' ->> 'id') AS request_id
    FROM log_raw
),
user_text AS (
    SELECT e.request_id, m.i AS message_no,
           CASE WHEN json_type(m.message -> 'content') = 'VARCHAR' THEN m.message ->> 'content'
                ELSE (SELECT string_agg(b.block ->> 'text', ' ' ORDER BY b.i)
                      FROM unnest(CAST(m.message -> 'content' AS JSON[])) WITH ORDINALITY AS b(block, i)
                      WHERE b.block ->> 'type' = 'text') END AS text
    FROM exchanges AS e,
         unnest(CAST(coalesce(e.record -> 'request' -> 'messages', '[]') AS JSON[])) WITH ORDINALITY AS m(message, i)
    WHERE m.message ->> 'role' = 'user'
),
answers AS (
    SELECT e.request_id, string_agg(b.block ->> 'text', '' ORDER BY b.i) AS text
    FROM exchanges AS e,
         unnest(CAST(coalesce(e.record -> 'response' -> 'content', '[]') AS JSON[])) WITH ORDINALITY AS b(block, i)
    WHERE b.block ->> 'type' = 'text'
    GROUP BY e.request_id
)
SELECT
    e.file,
    e.line,
    e.request_id,
    e.record -> 'request' -> 'metadata' ->> 'user_id'                               AS session_id,
    coalesce(e.record ->> 'timestamp', e.record ->> 'ts')                            AS ts_text,
    (SELECT arg_max(u.text, u.message_no) FROM user_text AS u WHERE u.request_id = e.request_id) AS question,
    a.text                                                                           AS answer,
    e.record -> 'response' ->> 'model'                                               AS model,
    e.record -> 'response' ->> 'stop_reason'                                         AS finish_reason,
    NULL::VARCHAR                                                                    AS refused_text,
    NULL::JSON                                                                       AS metadata,
    e.record                                                                         AS raw
FROM exchanges AS e
LEFT JOIN answers AS a ON a.request_id = e.request_id
