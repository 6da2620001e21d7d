-- One row per (run, threshold): the refusal thresholds the run sweeps,
-- read from runs.params.thresholds.
SELECT
    r.run_id,
    unnest(CAST(json_extract(r.params, '$.thresholds') AS INTEGER[])) AS threshold
FROM runs AS r
