-- One row per question: the best overlap score over the run's chunks (0 when no chunk
-- shares a non-stop word with it) and best_chunk_id, the first chunk in file order
-- with that score (NULL when the best score is 0).
-- The best chunk is the one with the largest (score, -ordinal): the highest score, then the
-- earliest chunk. One aggregate per question, not a window over every (question, chunk) pair.
WITH best AS (
    SELECT
        run_id,
        question_id,
        max(score)                                                        AS score,
        arg_max(chunk_id, struct_pack(score := score, earlier := -chunk_ordinal)) AS chunk_id
    FROM question_chunk_scores
    GROUP BY run_id, question_id
)
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    COALESCE(b.score, 0) AS best_score,
    b.chunk_id           AS best_chunk_id
FROM questions AS q
LEFT JOIN best AS b
    ON b.run_id = q.run_id AND b.question_id = q.question_id
