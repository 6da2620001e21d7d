-- evalwh JSONL: one row per element of a request's retrieved list, rank = position.
SELECT
    file,
    line,
    request_id,
    CAST(rank AS INTEGER)            AS rank,
    doc.chunk_id                     AS chunk_id,
    TRY_CAST(doc.score AS DOUBLE)    AS score,
    doc.content                      AS content,
    CASE WHEN doc.chunk_id IS NULL THEN 'none' ELSE 'id' END AS id_source
FROM (
    SELECT file, line, r.request_id AS request_id,
           unnest(r.retrieved) AS doc, unnest(range(1, len(r.retrieved) + 1)) AS rank
    FROM evalwh_spans
)
