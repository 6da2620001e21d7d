-- evalwh JSONL: one row per record whose fields have the wrong JSON type (file, line, error).
-- Text fields are strings (or null), refused is true/false, retrieved and cited are lists of
-- objects whose chunk_id and quote are strings and whose score is a finite number (or null).
-- Without this a number id, a string score or a retrieved string would load as something else.
-- Each record is parsed three times (the types of its fields, of its list elements, and the
-- list elements' fields as JSON fragments); the per-field checks then read small fragments.
WITH parsed AS (
    SELECT
        file,
        line,
        json_type(record, ['$.request_id', '$.session_id', '$.ts', '$.question', '$.answer', '$.model',
                           '$.finish_reason', '$.refused', '$.retrieved', '$.cited']) AS types,
        json_type(record, '$.retrieved[*]')                                                    AS doc_types,
        json_type(record, '$.cited[*]')                                                        AS cite_types,
        json_transform(record, '{
            "retrieved": [{"chunk_id": "JSON", "score": "JSON", "content": "JSON"}],
            "cited": [{"chunk_id": "JSON", "quote": "JSON"}]
        }') AS f
    FROM log_raw
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN coalesce(types[1], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'request_id must be a string'
            WHEN coalesce(types[2], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'session_id must be a string'
            WHEN coalesce(types[3], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'ts must be an ISO 8601 string'
            WHEN coalesce(types[4], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'question must be a string'
            WHEN coalesce(types[5], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'answer must be a string'
            WHEN coalesce(types[6], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'model must be a string'
            WHEN coalesce(types[7], 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'finish_reason must be a string'
            WHEN coalesce(types[8], 'NULL') NOT IN ('BOOLEAN', 'VARCHAR', 'NULL') THEN 'refused must be true or false'
            WHEN coalesce(types[9], 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'retrieved must be a list of objects'
            WHEN coalesce(types[10], 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'cited must be a list of objects'
            WHEN list_bool_or(list_transform(doc_types, lambda t: t <> 'OBJECT')) THEN 'retrieved must be a list of objects'
            WHEN list_bool_or(list_transform(cite_types, lambda t: t <> 'OBJECT')) THEN 'cited must be a list of objects'
            WHEN list_bool_or(list_transform(f.retrieved, lambda d: coalesce(json_type(d.chunk_id), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'retrieved chunk_id must be a string'
            WHEN list_bool_or(list_transform(f.retrieved, lambda d: coalesce(json_type(d.content), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'retrieved content must be a string'
            WHEN list_bool_or(list_transform(f.retrieved, lambda d:
                     coalesce(json_type(d.score), 'NULL') NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'NULL')
                     OR NOT coalesce(isfinite(TRY_CAST(CAST(d.score AS VARCHAR) AS DOUBLE)), TRUE)))
                THEN 'retrieved score must be a finite number'
            WHEN list_bool_or(list_transform(f.cited, lambda c: coalesce(json_type(c.chunk_id), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'cited chunk_id must be a string'
            WHEN list_bool_or(list_transform(f.cited, lambda c: coalesce(json_type(c.quote), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'cited quote must be a string'
        END AS error
    FROM parsed
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
