-- One row per question: the chapter's test case. chunk_id is the first chunk in file
-- order whose norm(text) contains norm(gold) (gold_matches), or 'none' when the question
-- expects a refusal or no chunk contains its gold text. (An empty gold is inside every chunk text.)
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    COALESCE(c.chunk_id, 'none') AS chunk_id
FROM questions AS q
LEFT JOIN gold_matches AS m
    ON m.run_id = q.run_id AND m.question_id = q.question_id
LEFT JOIN chunks AS c
    ON c.run_id = m.run_id AND c.ordinal = m.chunk_ordinal
