-- evalwh JSONL: one row per element of a request's cited list; quote may be null.
SELECT
    file,
    line,
    request_id,
    CAST(position AS INTEGER)        AS position,
    cit.chunk_id                     AS chunk_id,
    cit.quote                        AS quote,
    CASE WHEN cit.chunk_id IS NULL THEN 'unresolved' ELSE 'resolved' END AS resolution
FROM (
    SELECT file, line, r.request_id AS request_id,
           unnest(r.cited) AS cit, unnest(range(1, len(r.cited) + 1)) AS position
    FROM evalwh_spans
)
