-- Schema version 11: a dataset's blessed baseline, set on purpose, as data.
--
-- A team compares every candidate of a dataset with the run it approved, not with whichever run
-- happened to load last. Rows are only ever appended, so the log is the audit trail and concurrent
-- writers never update one row; the view `baselines` reads each dataset's latest row.

-- One row per setting or clearing of a dataset's baseline (`evalwh baseline set`, `baseline clear`).
CREATE TABLE baseline_log (
    dataset          VARCHAR   NOT NULL,  -- the dataset whose candidates are compared with the run
    baseline_run_id  VARCHAR,             -- the blessed run; NULL: the dataset's baseline was cleared
    set_at           TIMESTAMP NOT NULL,  -- when it was set or cleared (UTC)
    note             VARCHAR              -- why, as the user said it (--note)
);
