-- Anthropic: one row per record that is no logged exchange, or whose lists are not lists (file,
-- line, error). A record holds a request and a response, each an object or the JSON text of one,
-- and its request_id (else the response's id) is a string;
-- request.messages and response.content are lists, a message's content is a string or a list, a
-- response block's citations are a list. The anthropic_*.sql SELECTs read a value of another type
-- as absent; these checks keep such a record out of the warehouse instead (DuckDB only: Spark
-- imports do not check).
WITH texts AS (
    SELECT file, line,
           json_extract_string(record, '$.request')   AS request_text,
           json_extract_string(record, '$.response')  AS response_text,
           json_type(record, '$.request_id')           AS request_id_type
    FROM log_raw
),
parsed AS (
    SELECT
        file,
        line,
        CASE WHEN json_valid(request_text) AND json_type(CAST(request_text AS JSON)) = 'OBJECT'
             THEN CAST(request_text AS JSON) END                                   AS request,
        CASE WHEN json_valid(response_text) AND json_type(CAST(response_text AS JSON)) = 'OBJECT'
             THEN CAST(response_text AS JSON) END                                  AS response,
        request_id_type
    FROM texts
),
types AS (
    SELECT
        file,
        line,
        request,
        response,
        request_id_type,
        json_type(response, '$.id')                       AS response_id_type,
        json_type(request, '$.messages')                  AS messages_type,
        json_type(response, '$.content')                  AS content_type,
        json_type(request, '$.messages[*].content')       AS message_content_types,
        json_type(response, '$.content[*].citations')     AS citation_types
    FROM parsed
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN request IS NULL OR response IS NULL
                THEN 'not an anthropic exchange: it needs a request and a response object (or their JSON text)'
            WHEN coalesce(request_id_type, 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'request_id must be a string'
            WHEN coalesce(response_id_type, 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'response.id must be a string'
            WHEN coalesce(messages_type, 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'request.messages must be a list'
            WHEN coalesce(content_type, 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'response.content must be a list'
            WHEN list_bool_or(list_transform(message_content_types, lambda t: t NOT IN ('VARCHAR', 'ARRAY', 'NULL')))
                THEN 'a message content must be a string or a list'
            WHEN list_bool_or(list_transform(citation_types, lambda t: t NOT IN ('ARRAY', 'NULL')))
                THEN 'a response block''s citations must be a list'
        END AS error
    FROM types
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
