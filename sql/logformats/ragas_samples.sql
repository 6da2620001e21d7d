-- RAGAS samples (SingleTurnSample, as every ragas writer writes it: to_jsonl, to_csv, pandas'
-- Parquet and JSON, the datasets library's files, evaluate()'s result): one row per record, its
-- fields parsed. A list is a JSON list, or, in ragas's CSV, the Python literal of one
-- (python_list, the import's UDF). The older names question, contexts, answer and ground_truth
-- stand for user_input, retrieved_contexts, response and reference. metrics are evaluate()'s
-- columns: every other field holding a number (in CSV, a number's text) or nothing; a value that
-- is no finite number (NaN) is NULL.
--   request_id  the sample's request_id or id field, else 'ragas-' and the MD5 of its parsed fields
--               (user_input, response, reference, retrieved contexts and their ids, reference
--               contexts and their ids), so the same sample has the same id in every writer's file
WITH parsed AS (
    SELECT
        file,
        line,
        record,
        coalesce(json_extract_string(record, '$.user_input'), json_extract_string(record, '$.question')) AS user_input,
        coalesce(json_extract_string(record, '$.response'), json_extract_string(record, '$.answer'))     AS response,
        coalesce(json_extract_string(record, '$.reference'), json_extract_string(record, '$.ground_truth')) AS reference,
        coalesce(json_extract_string(record, '$.request_id'), json_extract_string(record, '$.id'))       AS given_id,
        json_transform(record, '{"retrieved_contexts": ["VARCHAR"], "contexts": ["VARCHAR"],
                                 "retrieved_context_ids": ["VARCHAR"], "reference_contexts": ["VARCHAR"],
                                 "reference_context_ids": ["VARCHAR"]}')                              AS lists,
        json_extract_string(record, '$.retrieved_contexts')                                            AS contexts_text,
        json_extract_string(record, '$.contexts')                                                      AS old_contexts_text,
        json_extract_string(record, '$.retrieved_context_ids')                                         AS ids_text,
        json_extract_string(record, '$.reference_contexts')                                            AS reference_contexts_text,
        json_extract_string(record, '$.reference_context_ids')                                         AS reference_ids_text,
        json_transform(record, '"MAP(VARCHAR, VARCHAR)"')                                               AS entries,
        list_filter(map_keys(json_transform(record, '"MAP(VARCHAR, VARCHAR)"')), lambda k: NOT list_contains(
            ['user_input', 'retrieved_contexts', 'reference_contexts', 'retrieved_context_ids',
             'reference_context_ids', 'response', 'multi_responses', 'reference', 'rubrics', 'persona_name',
             'query_style', 'query_length', 'question', 'contexts', 'answer', 'ground_truth', 'ground_truths',
             'request_id', 'id', '__index_level_0__'], k))                                           AS other_keys
    FROM log_raw
),
fields AS (
    SELECT
        file, line, record, user_input, response, reference, given_id,
        coalesce(lists.retrieved_contexts, python_list(contexts_text), lists.contexts, python_list(old_contexts_text))
                                                                                                       AS contexts,
        coalesce(lists.retrieved_context_ids, python_list(ids_text))                                   AS context_ids,
        coalesce(lists.reference_contexts, python_list(reference_contexts_text))                       AS reference_contexts,
        coalesce(lists.reference_context_ids, python_list(reference_ids_text))                         AS reference_context_ids,
        map_from_entries(list_transform(
            list_filter(other_keys, lambda k: entries[k] IS NULL OR TRY_CAST(entries[k] AS DOUBLE) IS NOT NULL),
            -- a finite number is one whose difference from itself is 0 (not so NaN or an infinity, on both engines)
            lambda k: struct_pack(k := k, v := CASE WHEN TRY_CAST(entries[k] AS DOUBLE) - TRY_CAST(entries[k] AS DOUBLE) = 0
                                                    THEN TRY_CAST(entries[k] AS DOUBLE) END)))                 AS metrics
    FROM parsed
)
SELECT
    *,
    coalesce(given_id, 'ragas-' || md5(concat_ws(chr(30),
        coalesce(user_input, chr(0)), coalesce(response, chr(0)), coalesce(reference, chr(0)),
        coalesce(array_to_string(contexts, chr(31)), chr(0)), coalesce(array_to_string(context_ids, chr(31)), chr(0)),
        coalesce(array_to_string(reference_contexts, chr(31)), chr(0)),
        coalesce(array_to_string(reference_context_ids, chr(31)), chr(0)))))                           AS request_id
FROM fields
