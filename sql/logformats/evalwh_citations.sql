-- evalwh JSONL: one row per element of a request's cited list; quote may be null.
SELECT
    r.file,
    r.line,
    r.record ->> 'request_id'        AS request_id,
    CAST(c.i AS INTEGER)             AS position,
    c.cit ->> 'chunk_id'             AS chunk_id,
    c.cit ->> 'quote'                AS quote,
    CASE WHEN c.cit ->> 'chunk_id' IS NULL THEN 'unresolved' ELSE 'resolved' END AS resolution
FROM log_raw AS r,
     unnest(CAST(coalesce(r.record -> 'cited', '[]') AS JSON[])) WITH ORDINALITY AS c(cit, i)
