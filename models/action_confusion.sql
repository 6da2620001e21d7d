-- One row per (run, expected action, observed action) for runs with responses: how many
-- questions expected one action and got the other. Every cell is present, zeros included:
-- expected in answer, refuse, flag_premise; observed in those and parse_failure.
WITH expected_values(expected) AS (VALUES ('answer'), ('refuse'), ('flag_premise')),
observed_values(observed) AS (VALUES ('answer'), ('refuse'), ('flag_premise'), ('parse_failure')),
pairs AS (
    SELECT q.run_id, q.expected, o.action AS observed
    FROM questions AS q
    JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
)
SELECT
    r.run_id,
    e.expected,
    ob.observed,
    count(p.run_id) AS n
FROM (SELECT DISTINCT run_id FROM responses) AS r
CROSS JOIN expected_values AS e
CROSS JOIN observed_values AS ob
LEFT JOIN pairs AS p ON p.run_id = r.run_id AND p.expected = e.expected AND p.observed = ob.observed
GROUP BY r.run_id, e.expected, ob.observed
