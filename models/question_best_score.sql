-- One row per question: the best overlap score over the run's chunks (0 when no chunk
-- shares a non-stop word with it) and best_chunk_id, the first chunk in file order
-- with that score (NULL when the best score is 0).
WITH ranked AS (
    SELECT
        run_id,
        question_id,
        chunk_id,
        score,
        row_number() OVER (
            PARTITION BY run_id, question_id
            ORDER BY score DESC, chunk_ordinal
        ) AS rank
    FROM question_chunk_scores
)
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    COALESCE(r.score, 0) AS best_score,
    r.chunk_id           AS best_chunk_id
FROM questions AS q
LEFT JOIN ranked AS r
    ON r.run_id = q.run_id AND r.question_id = q.question_id AND r.rank = 1
