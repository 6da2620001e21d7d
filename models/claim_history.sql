-- One row per (run, claim), for every run: the claim's status as history holds it, so SQL over the
-- history of claims never misses a run that was loaded but not materialised.
--   from claim_status_history where `evalwh materialize` stored the run's statuses
--   (materialized_at: when), else live from claim_status (materialized_at NULL)
SELECT run_id, claim_id, ordinal, status, cited_ids, materialized_at
FROM claim_status_history
UNION ALL
SELECT s.run_id, s.claim_id, s.ordinal, s.status, s.cited_ids, CAST(NULL AS TIMESTAMP) AS materialized_at
FROM claim_status AS s
WHERE s.run_id NOT IN (SELECT run_id FROM claim_status_history)
