-- One row per question with a response: the end-to-end outcome.
--   'failed before reading'  an answerable question whose gold chunk was not retrieved
--   'correct action'         otherwise, the reader's action is the expected one
--   'wrong action'           otherwise
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    o.action,
    e.recall_at_k,
    CASE
        WHEN q.expected = 'answer' AND e.recall_at_k = 0 THEN 'failed before reading'
        WHEN o.action = q.expected THEN 'correct action'
        ELSE 'wrong action'
    END AS outcome
FROM questions AS q
JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
JOIN retrieval_recall AS e ON e.run_id = q.run_id AND e.question_id = q.question_id
