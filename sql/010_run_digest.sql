-- Schema version 10: what a run was loaded from, so that loading the same input again is a no-op.
--
-- A CI job re-run restores the warehouse its first attempt wrote, which already holds the run: a load
-- of identical input under that run id succeeds without writing, and other input under it stays an error.
ALTER TABLE runs ADD COLUMN content_digest VARCHAR;  -- sha256 of the input files read and the load's settings (label, dataset, params); NULL for a run loaded before version 10
