-- Schema version 7: every run belongs to a dataset, so "the previous run" is the previous run
-- of the same dataset and reports, diffs and gates compare like with like.
--
-- runs.dataset is set at load (--dataset, run.toml's [run] dataset, else the folder's name;
-- a bundled seed's is its name). Runs of an older file get the name of the folder or seed
-- they were loaded from.
ALTER TABLE runs ADD COLUMN dataset VARCHAR;  -- the dataset the run belongs to; its runs are compared with each other

UPDATE runs
SET dataset = CASE WHEN source LIKE 'seed:%' THEN substr(source, 6)
                   ELSE regexp_extract(source, '([^/\\]+)[/\\]*$', 1) END;
