-- One row per (run, policy) for runs with responses, scored on every question of the run, as
-- the retrieve-then-read lesson counts them: observed (the reader's actions; a question without
-- a response took no action, a miss), always_answer and always_refuse.
--   exact_matches  questions whose action is the expected one, out of total (every question)
--   missed         the other question ids, in question order
WITH decisions AS (
    SELECT q.run_id, q.question_id, q.ordinal, q.expected, o.action AS observed
    FROM questions AS q
    LEFT JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
    WHERE q.run_id IN (SELECT run_id FROM responses)
),
policies(policy, position) AS (VALUES ('observed', 1), ('always_answer', 2), ('always_refuse', 3)),
scored AS (
    SELECT
        d.run_id,
        p.policy,
        p.position,
        d.question_id,
        d.ordinal,
        COALESCE(d.expected = CASE p.policy WHEN 'observed' THEN d.observed
                                            WHEN 'always_answer' THEN 'answer'
                                            ELSE 'refuse' END, FALSE) AS matched
    FROM decisions AS d CROSS JOIN policies AS p
)
SELECT
    run_id,
    policy,
    position,
    count(*) FILTER (WHERE matched) AS exact_matches,
    count(*)                        AS total,
    COALESCE(list_transform(list_sort(array_agg(struct_pack(o := ordinal, id := question_id)) FILTER (WHERE NOT matched)),
                            lambda x: x.id), CAST([] AS VARCHAR[])) AS missed
FROM scored
GROUP BY run_id, policy, position
