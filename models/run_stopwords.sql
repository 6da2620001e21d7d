-- One row per (run, stop word): the stop list the run's overlap score ignores,
-- read from runs.params.stopwords.
SELECT
    r.run_id,
    unnest(CAST(json_extract(r.params, '$.stopwords') AS VARCHAR[])) AS word
FROM runs AS r
