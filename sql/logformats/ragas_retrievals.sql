-- RAGAS: one row per retrieved context, rank = position; the chunk id comes from
-- retrieved_context_ids at the same position when the sample has them.
WITH samples AS (
    SELECT
        file,
        line,
        coalesce(record ->> 'request_id', record ->> 'id', 'ragas-' || md5(CAST(record AS VARCHAR))) AS request_id,
        CAST(coalesce(record -> 'retrieved_contexts', record -> 'contexts', '[]') AS VARCHAR[])         AS contexts,
        CAST(coalesce(record -> 'retrieved_context_ids', '[]') AS VARCHAR[])                          AS ids
    FROM log_raw
)
SELECT
    s.file,
    s.line,
    s.request_id,
    CAST(c.i AS INTEGER)                                    AS rank,
    s.ids[c.i]                                              AS chunk_id,
    NULL::DOUBLE                                            AS score,
    c.content,
    CASE WHEN s.ids[c.i] IS NULL THEN 'none' ELSE 'id' END  AS id_source
FROM samples AS s, unnest(s.contexts) WITH ORDINALITY AS c(content, i)
