-- One row per (run, metric) for production logs joined with the run; always live (never
-- materialised), since logs keep arriving. Each rate is out of the records that have its input,
-- and NULL ("no data") where none has (a log format that records no refusal, no quote or no
-- chunk id):
--   log_requests
--   log_refusal_rate       refusals / requests whose log records whether they refused
--   log_dangling_rate      DANGLING / citations naming a chunk id
--   log_unsupported_rate   UNSUPPORTED / citations whose quote was checked against their chunk
--   log_unresolved_rate    UNRESOLVED / all citations (their documents had no id)
--   and the dangling and unsupported rates over the last day with traffic (*_last_day)
WITH totals AS (
    SELECT run_id, sum(requests) AS requests, sum(refusals) AS refusals, sum(refusals_recorded) AS refusals_recorded,
           sum(citations) AS citations, sum(cited_chunks) AS cited_chunks, sum(checked_quotes) AS checked_quotes,
           sum(dangling_citations) AS dangling, sum(unsupported_quotes) AS unsupported,
           sum(unresolved_citations) AS unresolved
    FROM log_daily
    GROUP BY run_id
),
last_day AS (
    SELECT d.run_id, d.cited_chunks, d.checked_quotes, d.dangling_citations, d.unsupported_quotes
    FROM log_daily AS d
    WHERE d.day = (SELECT max(day) FROM log_daily AS x WHERE x.run_id = d.run_id)
)
SELECT run_id, 101 AS position, 'log_requests' AS metric, CAST(requests AS DOUBLE) AS value FROM totals
UNION ALL SELECT run_id, 102, 'log_refusal_rate',     refusals / NULLIF(refusals_recorded, 0)  FROM totals
UNION ALL SELECT run_id, 103, 'log_dangling_rate',    dangling / NULLIF(cited_chunks, 0)       FROM totals
UNION ALL SELECT run_id, 104, 'log_unsupported_rate', unsupported / NULLIF(checked_quotes, 0)  FROM totals
UNION ALL SELECT run_id, 105, 'log_dangling_rate_last_day', dangling_citations / NULLIF(cited_chunks, 0) FROM last_day
UNION ALL SELECT run_id, 106, 'log_unsupported_rate_last_day', unsupported_quotes / NULLIF(checked_quotes, 0) FROM last_day
UNION ALL SELECT run_id, 107, 'log_unresolved_rate',  unresolved / NULLIF(citations, 0)        FROM totals
