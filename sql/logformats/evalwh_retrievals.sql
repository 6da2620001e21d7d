-- evalwh JSONL: one row per element of a request's retrieved list, rank = position.
SELECT
    r.file,
    r.line,
    r.record ->> 'request_id'        AS request_id,
    CAST(d.i AS INTEGER)             AS rank,
    d.doc ->> 'chunk_id'             AS chunk_id,
    TRY_CAST(d.doc ->> 'score' AS DOUBLE) AS score,
    d.doc ->> 'content'              AS content,
    CASE WHEN d.doc ->> 'chunk_id' IS NULL THEN 'none' ELSE 'id' END AS id_source
FROM log_raw AS r,
     unnest(CAST(coalesce(r.record -> 'retrieved', '[]') AS JSON[])) WITH ORDINALITY AS d(doc, i)
