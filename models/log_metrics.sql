-- One row per (run, metric) for production logs joined with the run; always live (never
-- materialised), since logs keep arriving. Metrics:
--   log_requests, log_refusal_rate, log_dangling_rate and log_unsupported_rate (over all
--   citations), and the same two rates over the last day with traffic (*_last_day)
WITH totals AS (
    SELECT run_id, sum(requests) AS requests, sum(refusals) AS refusals, sum(citations) AS citations,
           sum(dangling_citations) AS dangling, sum(unsupported_quotes) AS unsupported
    FROM log_daily
    GROUP BY run_id
),
last_day AS (
    SELECT d.run_id, d.citations, d.dangling_citations, d.unsupported_quotes
    FROM log_daily AS d
    WHERE d.day = (SELECT max(day) FROM log_daily AS x WHERE x.run_id = d.run_id)
)
SELECT run_id, 101 AS position, 'log_requests' AS metric, CAST(requests AS DOUBLE) AS value FROM totals
UNION ALL SELECT run_id, 102, 'log_refusal_rate',     refusals / NULLIF(requests, 0)       FROM totals
UNION ALL SELECT run_id, 103, 'log_dangling_rate',    dangling / NULLIF(citations, 0)      FROM totals
UNION ALL SELECT run_id, 104, 'log_unsupported_rate', unsupported / NULLIF(citations, 0)   FROM totals
UNION ALL SELECT run_id, 105, 'log_dangling_rate_last_day', dangling_citations / NULLIF(citations, 0) FROM last_day
UNION ALL SELECT run_id, 106, 'log_unsupported_rate_last_day', unsupported_quotes / NULLIF(citations, 0) FROM last_day
