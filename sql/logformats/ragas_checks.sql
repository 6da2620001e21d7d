-- RAGAS: one row per record that is no sample, or whose fields have the wrong JSON type (file,
-- line, error). A sample has a user_input (or the older question). The texts (user_input,
-- question, response, answer, reference, ground_truth) are strings; retrieved_contexts, contexts,
-- retrieved_context_ids, reference_contexts and reference_context_ids are lists (in ragas's CSV,
-- a Python list literal), the contexts of strings and the ids of strings or numbers; an id
-- (request_id, id) is a string or a number; any of them may be null or absent. Without this an
-- object id or a number context would load as its JSON text (DuckDB only: Spark imports do not
-- check).
WITH parsed AS (
    SELECT
        file,
        line,
        json_type(record, ['$.user_input', '$.question', '$.response', '$.answer', '$.reference',
                           '$.ground_truth', '$.request_id', '$.id', '$.retrieved_contexts', '$.contexts',
                           '$.retrieved_context_ids', '$.reference_contexts',
                           '$.reference_context_ids'])                   AS types,
        [json_extract_string(record, '$.retrieved_contexts'), json_extract_string(record, '$.contexts'),
         json_extract_string(record, '$.retrieved_context_ids'), json_extract_string(record, '$.reference_contexts'),
         json_extract_string(record, '$.reference_context_ids')]         AS list_texts,
        list_concat(json_type(record, '$.retrieved_contexts[*]'), json_type(record, '$.contexts[*]'),
                    json_type(record, '$.reference_contexts[*]'))        AS context_types,
        list_concat(json_type(record, '$.retrieved_context_ids[*]'),
                    json_type(record, '$.reference_context_ids[*]'))     AS id_types
    FROM log_raw
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN coalesce(types[1], 'NULL') = 'NULL' AND coalesce(types[2], 'NULL') = 'NULL'
                THEN 'not a ragas sample: it has no user_input (or question)'
            WHEN list_bool_or(list_transform(array_slice(types, 1, 6), lambda t: coalesce(t, 'NULL') NOT IN ('VARCHAR', 'NULL')))
                THEN 'user_input, question, response, answer, reference and ground_truth must be strings'
            WHEN list_bool_or(list_transform(array_slice(types, 7, 8), lambda t:
                     coalesce(t, 'NULL') NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT', 'NULL')))
                THEN 'request_id and id must be strings or whole numbers'
            WHEN list_bool_or(list_transform(range(1, 6), lambda i:
                     coalesce(types[i + 8], 'NULL') NOT IN ('ARRAY', 'NULL')
                     AND NOT (types[i + 8] = 'VARCHAR' AND python_list(list_texts[i]) IS NOT NULL)))
                THEN 'retrieved_contexts, contexts, retrieved_context_ids, reference_contexts and '
                     || 'reference_context_ids must be lists (in CSV, a Python list literal)'
            WHEN list_bool_or(list_transform(context_types, lambda t: t NOT IN ('VARCHAR', 'NULL')))
                THEN 'retrieved_contexts, contexts and reference_contexts must list strings'
            WHEN list_bool_or(list_transform(id_types, lambda t: t NOT IN ('VARCHAR', 'BIGINT', 'UBIGINT', 'NULL')))
                THEN 'retrieved_context_ids and reference_context_ids must list strings or whole numbers'
        END AS error
    FROM parsed
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
