-- RAGAS: one row per sample whose fields have the wrong JSON type (file, line, error). The
-- texts (user_input, question, response, answer, reference, ground_truth) are strings,
-- retrieved_contexts and contexts lists of strings, retrieved_context_ids a list of strings or
-- numbers, and an id (request_id, id) a string or a number; any of them may be null or absent.
-- Without this an object id or a number context would load as its JSON text (DuckDB only:
-- Spark imports do not check).
WITH parsed AS (
    SELECT
        file,
        line,
        json_type(record, ['$.user_input', '$.question', '$.response', '$.answer', '$.reference',
                           '$.ground_truth', '$.request_id', '$.id', '$.retrieved_contexts', '$.contexts',
                           '$.retrieved_context_ids'])                   AS types,
        json_type(record, '$.retrieved_contexts[*]')                     AS context_types,
        json_type(record, '$.contexts[*]')                               AS old_context_types,
        json_type(record, '$.retrieved_context_ids[*]')                  AS id_types
    FROM log_raw
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN list_bool_or(list_transform(array_slice(types, 1, 6), lambda t: coalesce(t, 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'user_input, question, response, answer, reference and ground_truth must be strings'
            WHEN list_bool_or(list_transform(array_slice(types, 7, 8), lambda t:
                     coalesce(t, 'NULL') NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT', 'NULL')))
                THEN 'request_id and id must be strings or whole numbers'
            WHEN list_bool_or(list_transform(array_slice(types, 9, 11), lambda t: coalesce(t, 'NULL') NOT IN ('ARRAY', 'NULL')))
                THEN 'retrieved_contexts, contexts and retrieved_context_ids must be lists'
            WHEN list_bool_or(list_transform(list_concat(context_types, old_context_types),
                                             lambda t: t NOT IN ('VARCHAR', 'NULL')))
                THEN 'retrieved_contexts and contexts must list strings'
            WHEN list_bool_or(list_transform(id_types, lambda t: t NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT', 'NULL')))
                THEN 'retrieved_context_ids must list strings or whole numbers'
        END AS error
    FROM parsed
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
