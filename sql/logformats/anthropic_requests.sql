-- Anthropic: one request per logged exchange. The question is the text of the last user
-- message that has text (a string content, or its text blocks joined by a space); the answer
-- the response's text blocks joined; model and stop_reason from the response.
WITH exchanges AS (
    SELECT file, line, record,
           coalesce(json_extract_string(record, '$.request_id'), json_extract_string(record, '$.response.id'))
               AS request_id,
           json_transform(record, '{"request": {"messages": ["JSON"]}, "response": {"content": ["JSON"]}}') AS parsed
    FROM log_raw
),
numbered_messages AS (
    -- each message with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT request_id,
           unnest(list_transform(range(1, array_length(parsed.request.messages) + 1),
                                 lambda i: struct_pack(message := parsed.request.messages[i], i := i))) AS m
    FROM exchanges
),
user_messages AS (
    SELECT request_id, m.i AS message_no,
           json_transform(m.message, '{"content": ["JSON"]}').content   AS blocks,      -- a list content
           json_transform(m.message, '{"content": "VARCHAR"}').content   AS text_content -- a string content
    FROM numbered_messages
    WHERE json_extract_string(m.message, '$.role') = 'user'
),
user_blocks AS (
    SELECT request_id, message_no,
           unnest(list_transform(range(1, array_length(blocks) + 1),
                                 lambda i: struct_pack(block := blocks[i], i := i))) AS b
    FROM user_messages
),
block_texts AS (
    SELECT request_id, message_no,
           CASE WHEN count(json_extract_string(b.block, '$.text')) > 0 THEN
               array_to_string(list_transform(list_sort(array_agg(struct_pack(
                   i := b.i, text := json_extract_string(b.block, '$.text')))), lambda s: s.text), ' ')
           END AS text
    FROM user_blocks
    WHERE json_extract_string(b.block, '$.type') = 'text'
    GROUP BY request_id, message_no
),
user_texts AS (
    SELECT u.request_id, u.message_no, CASE WHEN u.blocks IS NULL THEN u.text_content ELSE t.text END AS text
    FROM user_messages AS u
    LEFT JOIN block_texts AS t ON t.request_id = u.request_id AND t.message_no = u.message_no
),
questions AS (
    SELECT request_id, arg_max(text, message_no) AS question
    FROM user_texts
    WHERE text IS NOT NULL
    GROUP BY request_id
),
answer_blocks AS (
    SELECT request_id,
           unnest(list_transform(range(1, array_length(parsed.response.content) + 1),
                                 lambda i: struct_pack(block := parsed.response.content[i], i := i))) AS b
    FROM exchanges
),
answers AS (
    SELECT request_id,
           CASE WHEN count(json_extract_string(b.block, '$.text')) > 0 THEN
               array_to_string(list_transform(list_sort(array_agg(struct_pack(
                   i := b.i, text := json_extract_string(b.block, '$.text')))), lambda s: s.text), '')
           END AS text
    FROM answer_blocks
    WHERE json_extract_string(b.block, '$.type') = 'text'
    GROUP BY request_id
)
SELECT
    e.file,
    e.line,
    e.request_id,
    json_extract_string(e.record, '$.request.metadata.user_id')                      AS session_id,
    coalesce(json_extract_string(e.record, '$.timestamp'), json_extract_string(e.record, '$.ts')) AS ts_text,
    q.question,
    a.text                                                                           AS answer,
    json_extract_string(e.record, '$.response.model')                                AS model,
    json_extract_string(e.record, '$.response.stop_reason')                          AS finish_reason,
    CAST(NULL AS VARCHAR)                                                            AS refused_text,
    CAST(NULL AS VARCHAR)                                                            AS metadata,
    e.record                                                                         AS raw
FROM exchanges AS e
LEFT JOIN questions AS q ON q.request_id = e.request_id
LEFT JOIN answers AS a ON a.request_id = e.request_id
