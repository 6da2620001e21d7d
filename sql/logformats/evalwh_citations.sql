-- evalwh JSONL: one row per element of a request's cited list; quote may be null.
SELECT
    file,
    line,
    request_id,
    CAST(c.at AS INTEGER)            AS position,
    c.cit.chunk_id                   AS chunk_id,
    c.cit.quote                      AS quote,
    CASE WHEN c.cit.chunk_id IS NULL THEN 'unresolved' ELSE 'resolved' END AS resolution,
    CAST(NULL AS JSON)               AS location
FROM (
    -- each element with its 1-based position, as one struct: one unnest, which Spark also allows
    SELECT file, line, r.request_id AS request_id,
           unnest(list_transform(range(1, array_length(r.cited) + 1),
                                 lambda i: struct_pack(at := i, cit := r.cited[i]))) AS c
    FROM evalwh_spans
)
