-- RAGAS: one row per retrieved context (ragas_samples), rank = position; the chunk id comes from
-- retrieved_context_ids at the same position when the sample has them.
WITH positioned AS (
    -- each context with its 1-based position, as one struct: one unnest, which Spark also allows
    SELECT file, line, request_id, context_ids,
           unnest(list_transform(range(1, array_length(contexts) + 1),
                                 lambda i: struct_pack(i := i, content := contexts[i]))) AS c
    FROM ragas_samples
)
SELECT
    file,
    line,
    request_id,
    CAST(c.i AS INTEGER)                                          AS rank,
    context_ids[c.i]                                              AS chunk_id,
    CAST(NULL AS DOUBLE)                                          AS score,
    c.content                                                     AS content,
    CASE WHEN context_ids[c.i] IS NULL THEN 'none' ELSE 'id' END  AS id_source,
    CAST(NULL AS JSON)                                            AS metadata
FROM positioned
