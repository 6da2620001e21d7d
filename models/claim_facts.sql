-- One row per (run, claim): what claim_changes compares of the claim in that run, and what it
-- shows of it:
--   ordinal, status, cited_ids  claim_status (the claim-status rule)
--   text, quote                 claims
-- A filter on one run_id reaches the tables under claim_status: the comparison of two large runs
-- reads each run's claims this way before putting them side by side.
SELECT s.run_id, s.claim_id, s.ordinal, s.status, s.cited_ids, c.text, c.quote
FROM claim_status AS s
JOIN claims AS c
    ON c.run_id = s.run_id AND c.claim_id = s.claim_id
