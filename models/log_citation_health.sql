-- One row per (run, production citation): the citation checked against the run's chunk
-- store by the claim-status rule.
--   chunk_exists  the cited chunk is in the run's chunks
--   quote_found   norm(quote) is inside the chunk's norm(text); NULL when the log had no quote
--   status        UNRESOLVED (the log names no chunk id: its document had none) | DANGLING (no such
--                 chunk, or the citation points past the request's documents) | UNCHECKED (no quote to
--                 check) | UNSUPPORTED | SUPPORTED
--   resolution    how the log's citation was resolved to a chunk id (see log_citations)
SELECT
    r.run_id,
    c.source,
    c.request_id,
    c.position,
    c.chunk_id,
    ch.chunk_id IS NOT NULL                                      AS chunk_exists,
    CASE WHEN c.quote IS NULL THEN NULL
         ELSE COALESCE(strpos(ch.text_norm, c.quote_norm) > 0, FALSE) END AS quote_found,
    CASE
        WHEN c.chunk_id IS NULL AND c.resolution = 'unresolved' THEN 'UNRESOLVED'
        WHEN ch.chunk_id IS NULL THEN 'DANGLING'
        WHEN c.quote IS NULL THEN 'UNCHECKED'
        WHEN strpos(ch.text_norm, c.quote_norm) > 0 THEN 'SUPPORTED'
        ELSE 'UNSUPPORTED'
    END                                                          AS status,
    c.resolution,
    q.ts
FROM runs AS r
CROSS JOIN log_citations AS c
JOIN log_requests AS q ON q.source = c.source AND q.request_id = c.request_id
LEFT JOIN chunks AS ch ON ch.run_id = r.run_id AND ch.chunk_id = c.chunk_id
