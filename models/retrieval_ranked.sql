-- One row per (question, retrieved chunk) in rank order: what the evaluated system
-- retrieved (the retrievals file) or, without one, what the built-in retriever found.
--   chunk_exists  the retrieved id is a chunk of the run
SELECT
    r.run_id,
    r.question_id,
    r.chunk_id,
    r.rank,
    r.score,
    c.chunk_id IS NOT NULL AS chunk_exists
FROM retrievals AS r
LEFT JOIN chunks AS c
    ON c.run_id = r.run_id AND c.chunk_id = r.chunk_id
