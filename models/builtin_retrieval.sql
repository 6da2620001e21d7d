-- One row per (question, retrieved chunk) of the run's built-in retriever: chunks scoring
-- above 0, ranked by score descending then chunk id, the top k kept. A load without a
-- retrievals file stores these rows in the retrievals table.
WITH ranked AS (
    SELECT
        sc.run_id,
        sc.question_id,
        sc.chunk_id,
        sc.score,
        row_number() OVER (PARTITION BY sc.run_id, sc.question_id ORDER BY sc.score DESC, sc.chunk_id) AS rank
    FROM retriever_scores AS sc
)
SELECT r.run_id, r.question_id, r.chunk_id, CAST(r.rank AS INTEGER) AS rank, r.score
FROM ranked AS r
JOIN run_settings AS s ON s.run_id = r.run_id
WHERE r.rank <= s.top_k
