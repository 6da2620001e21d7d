-- Anthropic: one request per logged exchange (anthropic_exchanges). The question is the text of
-- the last user message that has text (a string content, or its text blocks joined by a space: a
-- message holding only tool results has none); the answer the response's text blocks joined; model
-- and stop_reason from the response. refused is the API's own word: stop_reason "refusal" is a
-- refusal, any other stop_reason is not, and a response without one records neither. The session
-- is the request's metadata.user_id.
WITH numbered_messages AS (
    -- each message with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT request_id,
           unnest(list_transform(range(1, array_length(messages) + 1),
                                 lambda i: struct_pack(message := messages[i], i := i))) AS m
    FROM anthropic_exchanges
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
           unnest(list_transform(range(1, array_length(content) + 1),
                                 lambda i: struct_pack(block := content[i], i := i))) AS b
    FROM anthropic_exchanges
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
    json_extract_string(e.request, '$.metadata.user_id')                             AS session_id,
    coalesce(json_extract_string(e.record, '$.timestamp'), json_extract_string(e.record, '$.ts')) AS ts_text,
    q.question,
    a.text                                                                           AS answer,
    json_extract_string(e.response, '$.model')                                       AS model,
    json_extract_string(e.response, '$.stop_reason')                                 AS finish_reason,
    CASE WHEN json_extract_string(e.response, '$.stop_reason') IS NULL THEN NULL
         WHEN json_extract_string(e.response, '$.stop_reason') = 'refusal' THEN 'true'
         ELSE 'false' END                                                            AS refused_text,
    CAST(NULL AS VARCHAR)                                                            AS metadata,
    e.record                                                                         AS raw
FROM anthropic_exchanges AS e
LEFT JOIN questions AS q ON q.request_id = e.request_id
LEFT JOIN answers AS a ON a.request_id = e.request_id
