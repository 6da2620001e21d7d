-- One row per ordered pair of distinct runs (run, baseline), of any datasets: what run_pairs keeps
-- the pairs of one dataset of, and what `diff --across-datasets` compares through.
--   same_dataset  both runs belong to one dataset
--   is_previous   the baseline is the run of the same dataset created just before the run:
--                 the baseline reports, diff and check use when none is given
WITH ordered AS (
    SELECT
        run_id,
        dataset,
        lag(run_id) OVER (PARTITION BY dataset ORDER BY created_at, run_id) AS previous_run_id
    FROM runs
)
SELECT
    r.run_id,
    b.run_id AS baseline_run_id,
    r.dataset IS NOT DISTINCT FROM b.dataset AS same_dataset,
    r.previous_run_id IS NOT DISTINCT FROM b.run_id AS is_previous
FROM ordered AS r
JOIN runs AS b ON b.run_id <> r.run_id
