-- Anthropic: the passages a request showed the model, one row per document or search-result
-- block, in the order the request holds them: the messages in order, each message's content
-- blocks in order, and inside a tool_result block its own content in order. Numbered per kind
-- from 0 across the whole request (kind_index), as the API numbers document_index and
-- search_result_index, and all together from 1 (shown_rank).
--   chunk_id  a document's id field, else its title; a search result's source
--   metadata  the passage's title and context (a document's context field), as logged
--   content   a plain-text document's data; a custom-content document's text blocks, or its
--             string, joined as the API joins cited blocks (with nothing between them); a search
--             result's text blocks, likewise. A PDF (base64, URL or file) has no text here: NULL.
WITH numbered_messages AS (
    -- each message with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, request_id,
           unnest(list_transform(range(1, array_length(messages) + 1),
                                 lambda i: struct_pack(message := messages[i], i := i))) AS m
    FROM anthropic_exchanges
),
message_blocks AS (
    SELECT file, line, request_id, m.i AS message_no,
           json_transform(m.message, '{"content": ["JSON"]}').content AS content  -- NULL for text content
    FROM numbered_messages
),
numbered_blocks AS (
    SELECT file, line, request_id, message_no,
           unnest(list_transform(range(1, array_length(content) + 1),
                                 lambda i: struct_pack(block := content[i], i := i))) AS b
    FROM message_blocks
),
tool_results AS (
    SELECT file, line, request_id, message_no, b.i AS block_no,
           json_transform(b.block, '{"content": ["JSON"]}').content AS content  -- NULL for a string result
    FROM numbered_blocks
    WHERE json_extract_string(b.block, '$.type') = 'tool_result'
),
inner_blocks AS (
    SELECT file, line, request_id, message_no, block_no,
           unnest(list_transform(range(1, array_length(content) + 1),
                                 lambda i: struct_pack(block := content[i], i := i))) AS b
    FROM tool_results
),
blocks AS (
    SELECT file, line, request_id, message_no, b.i AS block_no, 0 AS inner_no, b.block
    FROM numbered_blocks
    UNION ALL
    SELECT file, line, request_id, message_no, block_no, b.i AS inner_no, b.block
    FROM inner_blocks
),
passages AS (
    SELECT file, line, request_id, message_no, block_no, inner_no, block,
           json_extract_string(block, '$.type') AS kind,
           json_extract_string(block, '$.source.type') AS source_type,
           -- a search result's content, or a custom-content document's: its text blocks
           CASE WHEN json_extract_string(block, '$.type') = 'search_result'
                THEN json_transform(block, '{"content": [{"type": "VARCHAR", "text": "VARCHAR"}]}').content
                ELSE json_transform(block, '{"source": {"content": [{"type": "VARCHAR", "text": "VARCHAR"}]}}')
                         .source.content END AS text_blocks
    FROM blocks
    WHERE json_extract_string(block, '$.type') IN ('document', 'search_result')
)
SELECT
    file,
    line,
    request_id,
    kind,
    CAST(row_number() OVER (PARTITION BY request_id, kind ORDER BY message_no, block_no, inner_no) - 1 AS INTEGER)
                                                                                      AS kind_index,
    CAST(row_number() OVER (PARTITION BY request_id ORDER BY message_no, block_no, inner_no) AS INTEGER) AS shown_rank,
    CASE WHEN kind = 'document' THEN coalesce(json_extract_string(block, '$.id'), json_extract_string(block, '$.title'))
         ELSE json_extract_string(block, '$.source') END                              AS chunk_id,
    json_object('title', json_extract_string(block, '$.title'),
                'context', json_extract_string(block, '$.context'))                  AS metadata,
    CASE WHEN kind = 'document' AND source_type = 'text' THEN json_extract_string(block, '$.source.data')
         WHEN kind = 'document' AND source_type = 'content' AND text_blocks IS NULL
             THEN json_extract_string(block, '$.source.content')
         WHEN text_blocks IS NOT NULL
             THEN array_to_string(list_transform(list_filter(text_blocks, lambda t: t.type = 'text'),
                                                 lambda t: t.text), '')
    END                                                                               AS content
FROM passages
