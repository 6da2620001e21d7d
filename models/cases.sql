-- One row per question: the chapter's test case. chunk_id is the first chunk in file
-- order whose norm(text) contains norm(gold), or 'none' when the question expects a
-- refusal or no chunk contains its gold text. (An empty gold is inside every chunk text.)
WITH first_match AS (
    SELECT
        q.run_id,
        q.question_id,
        min(c.ordinal) AS chunk_ordinal
    FROM questions AS q
    JOIN chunks AS c
        ON c.run_id = q.run_id AND strpos(c.text_norm, q.gold_norm) > 0
    WHERE q.expected <> 'refuse'
    GROUP BY q.run_id, q.question_id
)
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    COALESCE(c.chunk_id, 'none') AS chunk_id
FROM questions AS q
LEFT JOIN first_match AS m
    ON m.run_id = q.run_id AND m.question_id = q.question_id
LEFT JOIN chunks AS c
    ON c.run_id = m.run_id AND c.ordinal = m.chunk_ordinal
