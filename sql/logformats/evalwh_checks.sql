-- evalwh JSONL: one row per record whose fields have the wrong JSON type (file, line, error).
-- Text fields are strings (or null), refused is true/false, retrieved and cited are lists of
-- objects whose chunk_id and quote are strings and whose score is a finite number (or null).
-- Without this a number id, a string score or a retrieved string would load as something else.
WITH fields AS (
    SELECT
        file,
        line,
        json_transform(record, '{
            "request_id": "JSON", "session_id": "JSON", "ts": "JSON", "question": "JSON", "answer": "JSON",
            "model": "JSON", "finish_reason": "JSON", "refused": "JSON", "retrieved": "JSON", "cited": "JSON"
        }') AS f
    FROM log_raw
),
items AS (
    SELECT
        file,
        line,
        f,
        CASE WHEN json_type(f.retrieved) = 'ARRAY'
             THEN json_transform(f.retrieved, '[{"chunk_id": "JSON", "score": "JSON", "content": "JSON"}]') END AS docs,
        CASE WHEN json_type(f.cited) = 'ARRAY'
             THEN json_transform(f.cited, '[{"chunk_id": "JSON", "quote": "JSON"}]') END                      AS cites,
        CASE WHEN json_type(f.retrieved) = 'ARRAY' THEN json_extract(f.retrieved, '$[*]') END                  AS doc_values,
        CASE WHEN json_type(f.cited) = 'ARRAY' THEN json_extract(f.cited, '$[*]') END                          AS cite_values
    FROM fields
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN coalesce(json_type(f.request_id), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'request_id must be a string'
            WHEN coalesce(json_type(f.session_id), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'session_id must be a string'
            WHEN coalesce(json_type(f.ts), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'ts must be an ISO 8601 string'
            WHEN coalesce(json_type(f.question), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'question must be a string'
            WHEN coalesce(json_type(f.answer), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'answer must be a string'
            WHEN coalesce(json_type(f.model), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'model must be a string'
            WHEN coalesce(json_type(f.finish_reason), 'NULL') NOT IN ('VARCHAR', 'NULL') THEN 'finish_reason must be a string'
            WHEN coalesce(json_type(f.refused), 'NULL') NOT IN ('BOOLEAN', 'VARCHAR', 'NULL') THEN 'refused must be true or false'
            WHEN coalesce(json_type(f.retrieved), 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'retrieved must be a list of objects'
            WHEN coalesce(json_type(f.cited), 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'cited must be a list of objects'
            WHEN list_bool_or(list_transform(doc_values, lambda d: json_type(d) <> 'OBJECT'))
                THEN 'retrieved must be a list of objects'
            WHEN list_bool_or(list_transform(cite_values, lambda c: json_type(c) <> 'OBJECT'))
                THEN 'cited must be a list of objects'
            WHEN list_bool_or(list_transform(docs, lambda d: coalesce(json_type(d.chunk_id), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'retrieved chunk_id must be a string'
            WHEN list_bool_or(list_transform(docs, lambda d: coalesce(json_type(d.content), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'retrieved content must be a string'
            WHEN list_bool_or(list_transform(docs, lambda d:
                     coalesce(json_type(d.score), 'NULL') NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'NULL')
                     OR NOT coalesce(isfinite(TRY_CAST(CAST(d.score AS VARCHAR) AS DOUBLE)), TRUE)))
                THEN 'retrieved score must be a finite number'
            WHEN list_bool_or(list_transform(cites, lambda c: coalesce(json_type(c.chunk_id), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'cited chunk_id must be a string'
            WHEN list_bool_or(list_transform(cites, lambda c: coalesce(json_type(c.quote), 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'cited quote must be a string'
        END AS error
    FROM items
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
