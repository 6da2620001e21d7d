-- One row per (run, day of production traffic, UTC): requests, refusals, and citations the
-- run's chunk store finds DANGLING or UNSUPPORTED. day is NULL for requests without a timestamp.
WITH requests AS (
    SELECT CAST(ts AS DATE) AS day, count(*) AS requests, count(*) FILTER (WHERE refused) AS refusals
    FROM log_requests
    GROUP BY CAST(ts AS DATE)
),
citations AS (
    SELECT
        run_id,
        CAST(ts AS DATE)                                   AS day,
        count(*)                                           AS citations,
        count(*) FILTER (WHERE status = 'DANGLING')        AS dangling_citations,
        count(*) FILTER (WHERE status = 'UNSUPPORTED')     AS unsupported_quotes
    FROM log_citation_health
    GROUP BY run_id, CAST(ts AS DATE)
)
SELECT
    r.run_id,
    q.day,
    q.requests,
    q.refusals,
    COALESCE(c.citations, 0)           AS citations,
    COALESCE(c.dangling_citations, 0)  AS dangling_citations,
    COALESCE(c.unsupported_quotes, 0)  AS unsupported_quotes
FROM runs AS r
CROSS JOIN requests AS q
LEFT JOIN citations AS c ON c.run_id = r.run_id AND c.day IS NOT DISTINCT FROM q.day
