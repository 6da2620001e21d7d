-- One row per (run, threshold): the refusal thresholds the run sweeps,
-- read from runs.params.thresholds.
SELECT
    r.run_id,
    t.threshold
FROM runs AS r,
     unnest(CAST(json_extract(r.params, '$.thresholds') AS INTEGER[])) AS t(threshold)
