-- RAGAS: one row per retrieved context, rank = position; the chunk id comes from
-- retrieved_context_ids at the same position when the sample has them.
WITH samples AS (
    SELECT
        file,
        line,
        coalesce(json_extract_string(record, '$.request_id'), json_extract_string(record, '$.id'),
                 'ragas-' || md5(CAST(record AS VARCHAR)))                        AS request_id,
        coalesce(CAST(json_extract(record, '$.retrieved_contexts') AS VARCHAR[]),
                 CAST(json_extract(record, '$.contexts') AS VARCHAR[]),
                 CAST([] AS VARCHAR[]))                                           AS contexts,
        coalesce(CAST(json_extract(record, '$.retrieved_context_ids') AS VARCHAR[]),
                 CAST([] AS VARCHAR[]))                                           AS ids
    FROM log_raw
),
positioned AS (
    -- each context with its 1-based position, as one struct: one unnest, which Spark also allows
    SELECT file, line, request_id, ids,
           unnest(list_transform(range(1, array_length(contexts) + 1),
                                 lambda i: struct_pack(i := i, content := contexts[i]))) AS c
    FROM samples
)
SELECT
    file,
    line,
    request_id,
    CAST(c.i AS INTEGER)                                  AS rank,
    ids[c.i]                                              AS chunk_id,
    CAST(NULL AS DOUBLE)                                  AS score,
    c.content                                             AS content,
    CASE WHEN ids[c.i] IS NULL THEN 'none' ELSE 'id' END  AS id_source
FROM positioned
