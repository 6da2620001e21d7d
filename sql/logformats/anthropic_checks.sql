-- Anthropic: one row per record whose lists are not lists (file, line, error): request.messages
-- and response.content are lists, a message's content is a string or a list, a response
-- block's citations are a list. The anthropic_*.sql SELECTs read a value of another type as
-- absent; these checks keep such a record out of the warehouse instead (DuckDB only: Spark
-- imports do not check).
WITH parsed AS (
    SELECT
        file,
        line,
        json_type(record, '$.request.messages')                  AS messages_type,
        json_type(record, '$.response.content')                  AS content_type,
        json_type(record, '$.request.messages[*].content')       AS message_content_types,
        json_type(record, '$.response.content[*].citations')     AS citation_types
    FROM log_raw
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN coalesce(messages_type, 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'request.messages must be a list'
            WHEN coalesce(content_type, 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'response.content must be a list'
            WHEN list_bool_or(list_transform(message_content_types, lambda t: t NOT IN ('VARCHAR', 'ARRAY', 'NULL')))
                THEN 'a message content must be a string or a list'
            WHEN list_bool_or(list_transform(citation_types, lambda t: t NOT IN ('ARRAY', 'NULL')))
                THEN 'a response block''s citations must be a list'
        END AS error
    FROM parsed
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
