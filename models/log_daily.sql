-- One row per (run, day of production traffic, UTC): requests and refusals, and the citations the
-- run's chunk store finds DANGLING, UNSUPPORTED or UNRESOLVED. day is NULL for requests without a
-- timestamp. Each count has beside it the records it is out of, where a log may lack its input:
--   refusals_recorded   requests whose log records whether they refused (evalwh's refused, the
--                       Anthropic API's stop_reason); refusals is NULL on a day with none
--   cited_chunks        citations naming a chunk id (all but UNRESOLVED): what can dangle
--   checked_quotes      citations whose quote was checked against their chunk (SUPPORTED or
--                       UNSUPPORTED): what can be unsupported
WITH requests AS (
    SELECT CAST(ts AS DATE) AS day, count(*) AS requests, count(refused) AS refusals_recorded,
           count(*) FILTER (WHERE refused) AS refusals
    FROM log_requests
    GROUP BY CAST(ts AS DATE)
),
citations AS (
    SELECT
        run_id,
        CAST(ts AS DATE)                                                  AS day,
        count(*)                                                          AS citations,
        count(*) FILTER (WHERE status <> 'UNRESOLVED')                    AS cited_chunks,
        count(*) FILTER (WHERE status IN ('SUPPORTED', 'UNSUPPORTED'))    AS checked_quotes,
        count(*) FILTER (WHERE status = 'DANGLING')                       AS dangling_citations,
        count(*) FILTER (WHERE status = 'UNSUPPORTED')                    AS unsupported_quotes,
        count(*) FILTER (WHERE status = 'UNRESOLVED')                     AS unresolved_citations
    FROM log_citation_health
    GROUP BY run_id, CAST(ts AS DATE)
)
SELECT
    r.run_id,
    q.day,
    q.requests,
    CASE WHEN q.refusals_recorded > 0 THEN q.refusals END    AS refusals,
    q.refusals_recorded,
    COALESCE(c.citations, 0)              AS citations,
    COALESCE(c.cited_chunks, 0)           AS cited_chunks,
    COALESCE(c.checked_quotes, 0)         AS checked_quotes,
    COALESCE(c.dangling_citations, 0)     AS dangling_citations,
    COALESCE(c.unsupported_quotes, 0)     AS unsupported_quotes,
    COALESCE(c.unresolved_citations, 0)   AS unresolved_citations
FROM runs AS r
CROSS JOIN requests AS q
LEFT JOIN citations AS c ON c.run_id = r.run_id AND c.day IS NOT DISTINCT FROM q.day
