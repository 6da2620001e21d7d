-- evalwh JSONL: one row per element of a request's retrieved list, rank = position.
SELECT
    file,
    line,
    request_id,
    CAST(d.rank AS INTEGER)            AS rank,
    d.doc.chunk_id                     AS chunk_id,
    TRY_CAST(d.doc.score AS DOUBLE)    AS score,
    d.doc.content                      AS content,
    CASE WHEN d.doc.chunk_id IS NULL THEN 'none' ELSE 'id' END AS id_source,
    CAST(NULL AS JSON)                 AS metadata
FROM (
    -- each element with its 1-based position, as one struct: one unnest, which Spark also allows
    SELECT file, line, r.request_id AS request_id,
           unnest(list_transform(range(1, array_length(r.retrieved) + 1),
                                 lambda i: struct_pack(rank := i, doc := r.retrieved[i]))) AS d
    FROM evalwh_spans
)
