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
    WHERE q.expected <> 'refuse' AND q.gold_norm <> ''
    GROUP BY q.run_id, q.question_id
    UNION ALL
    -- an empty gold is inside every chunk text: the run's first chunk, found without searching them
    SELECT q.run_id, q.question_id, f.chunk_ordinal
    FROM questions AS q
    JOIN (SELECT run_id, min(ordinal) AS chunk_ordinal FROM chunks GROUP BY run_id) AS f
        ON f.run_id = q.run_id
    WHERE q.expected <> 'refuse' AND q.gold_norm = ''
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
