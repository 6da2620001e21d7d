-- One row per ordered pair of distinct runs of one dataset (run, baseline): the pairs the
-- comparison views (question_changes, claim_changes) are computed for, and what a user's SQL
-- filters on. Runs of different datasets hold different questions, so they are never compared
-- here (run_pairs_all has every pair).
--   is_previous   the baseline is the run of the same dataset created just before the run:
--                 the baseline reports, diff and check use when none is given and the dataset
--                 has no blessed baseline (the view baselines)
-- "What changed from A to B" is WHERE baseline_run_id = 'A' AND run_id = 'B';
-- "what each run changed" is WHERE is_previous.
SELECT run_id, baseline_run_id, is_previous
FROM run_pairs_all
WHERE same_dataset
