-- Logged Anthropic Messages API exchanges, one a record: {"request_id"?, "timestamp"?,
-- "request": {...Messages API request...}, "response": {...Messages API response...}}.
-- One row per document or search-result block of the request, in order: the passages the
-- model was shown. A document's chunk id is its title (or an "id" field); a search result's
-- is its source. Numbered per kind from 0, as document_index and search_result_index count.
WITH exchanges AS (
    SELECT file, line, record, coalesce(record ->> 'request_id', record -> 'response' ->> 'id') AS request_id
    FROM log_raw
),
blocks AS (
    SELECT e.file, e.line, e.request_id, m.i AS message_no, b.i AS block_no, b.block
    FROM exchanges AS e,
         unnest(CAST(coalesce(e.record -> 'request' -> 'messages', '[]') AS JSON[])) WITH ORDINALITY AS m(message, i),
         unnest(CAST(CASE WHEN json_type(m.message -> 'content') = 'ARRAY' THEN m.message -> 'content' ELSE '[]' END
                     AS JSON[])) WITH ORDINALITY AS b(block, i)
    WHERE b.block ->> 'type' IN ('document', 'search_result')
)
SELECT
    file,
    line,
    request_id,
    block ->> 'type'                                                                  AS kind,
    CAST(row_number() OVER (PARTITION BY request_id, block ->> 'type' ORDER BY message_no, block_no) - 1 AS INTEGER)
                                                                                      AS kind_index,
    CAST(row_number() OVER (PARTITION BY request_id ORDER BY message_no, block_no) AS INTEGER) AS shown_rank,
    CASE WHEN block ->> 'type' = 'document' THEN coalesce(block ->> 'id', block ->> 'title')
         ELSE block ->> 'source' END                                                  AS chunk_id,
    CASE WHEN block ->> 'type' = 'document' THEN block -> 'source' ->> 'data'
         ELSE CAST(block -> 'content' AS VARCHAR) END                                 AS content
FROM blocks
