-- Logged Anthropic Messages API exchanges, one a record: {"request_id"?, "timestamp"?,
-- "request": {...Messages API request...}, "response": {...Messages API response...}}.
-- One row per document or search-result block of the request, in order: the passages the
-- model was shown. A document's chunk id is its title (or an "id" field); a search result's
-- is its source. Numbered per kind from 0, as document_index and search_result_index count.
WITH exchanges AS (
    SELECT file, line,
           coalesce(json_extract_string(record, '$.request_id'), json_extract_string(record, '$.response.id'))
               AS request_id,
           json_transform(record, '{"request": {"messages": ["JSON"]}}').request.messages AS messages
    FROM log_raw
),
numbered_messages AS (
    -- each message with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, request_id,
           unnest(list_transform(range(1, array_length(messages) + 1),
                                 lambda i: struct_pack(message := messages[i], i := i))) AS m
    FROM exchanges
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
blocks AS (
    SELECT file, line, request_id, message_no, b.i AS block_no, b.block,
           json_extract_string(b.block, '$.type') AS kind
    FROM numbered_blocks
    WHERE json_extract_string(b.block, '$.type') IN ('document', 'search_result')
)
SELECT
    file,
    line,
    request_id,
    kind,
    CAST(row_number() OVER (PARTITION BY request_id, kind ORDER BY message_no, block_no) - 1 AS INTEGER)
                                                                                      AS kind_index,
    CAST(row_number() OVER (PARTITION BY request_id ORDER BY message_no, block_no) AS INTEGER) AS shown_rank,
    CASE WHEN kind = 'document' THEN coalesce(json_extract_string(block, '$.id'), json_extract_string(block, '$.title'))
         ELSE json_extract_string(block, '$.source') END                              AS chunk_id,
    CASE WHEN kind = 'document' THEN json_extract_string(block, '$.source.data')
         ELSE json_extract_string(block, '$.content') END                             AS content
FROM blocks
