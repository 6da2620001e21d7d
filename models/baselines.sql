-- One row per dataset with a blessed baseline: the run its candidates are compared with (by
-- report, diff, check and site, unless --baseline names another), set by `evalwh baseline set`.
-- A dataset without a row is compared run by run with its previous run.
--   run_id   the blessed run
--   set_at   when it was blessed (UTC)
--   note     why, as given with --note
-- The whole history of settings and clearings is in the table baseline_log.
SELECT dataset, baseline_run_id AS run_id, set_at, note
FROM (
    SELECT *, row_number() OVER (PARTITION BY dataset ORDER BY set_at DESC) AS latest
    FROM baseline_log
)
WHERE latest = 1 AND baseline_run_id IS NOT NULL
