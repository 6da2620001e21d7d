-- One row per (run, baseline, claim in either run): the claim's status in the baseline and in
-- the run, for every pair of run_pairs (two runs of one dataset), matched by claim id.
--   change    'removed' (only in the baseline); for a claim only in the run 'worse' when it is not
--             SUPPORTED, else 'new'; otherwise 'better' when it became SUPPORTED, 'worse' when it
--             stopped being SUPPORTED, else 'same' (a failing claim may move between failing statuses)
--   severity  3 for a 'worse' claim (NULL for any other change), on question_changes' scale: below
--             a lost outcome (4, 5), above an answer score's drop (at most 2)
--   reason    one line saying why the change is what it is (NULL where the status is the same)
--   text, quote, cited_ids  the run's (the baseline's for a removed claim)
-- Each run's side is read from claim_facts, so a filter on a pair's run ids reaches each run's
-- tables on its own.
WITH paired AS (
    SELECT p.run_id, p.baseline_run_id, f.claim_id
    FROM run_pairs AS p JOIN claim_facts AS f ON f.run_id = p.run_id
    UNION
    SELECT p.run_id, p.baseline_run_id, f.claim_id
    FROM run_pairs AS p JOIN claim_facts AS f ON f.run_id = p.baseline_run_id
),
labelled AS (
    SELECT
        k.run_id,
        k.baseline_run_id,
        k.claim_id,
        COALESCE(n.ordinal, o.ordinal)     AS ordinal,
        COALESCE(n.text, o.text)           AS text,
        COALESCE(n.quote, o.quote)         AS quote,
        COALESCE(n.cited_ids, o.cited_ids) AS cited_ids,
        o.status AS old_status,
        n.status AS new_status,
        CASE
            WHEN n.claim_id IS NULL THEN 'removed'
            WHEN o.claim_id IS NULL THEN CASE WHEN n.status = 'SUPPORTED' THEN 'new' ELSE 'worse' END
            WHEN n.status = o.status THEN 'same'
            WHEN n.status = 'SUPPORTED' THEN 'better'
            WHEN o.status = 'SUPPORTED' THEN 'worse'
            ELSE 'same'
        END AS change
    FROM paired AS k
    LEFT JOIN claim_facts AS n ON n.run_id = k.run_id AND n.claim_id = k.claim_id
    LEFT JOIN claim_facts AS o ON o.run_id = k.baseline_run_id AND o.claim_id = k.claim_id
)
SELECT
    run_id, baseline_run_id, claim_id, ordinal, text, quote, cited_ids, old_status, new_status, change,
    CASE WHEN change = 'worse' THEN CAST(3 AS DOUBLE) END AS severity,
    CASE
        WHEN change = 'removed' THEN 'only in the baseline'
        WHEN old_status IS NULL THEN 'new claim: ' || new_status
        WHEN old_status = new_status THEN NULL
        WHEN change = 'same' THEN old_status || ' -> ' || new_status || ' (failing either way)'
        ELSE old_status || ' -> ' || new_status
    END AS reason
FROM labelled
