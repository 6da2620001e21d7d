-- One row per question: where retrieval put its gold chunk, from the retrieved ranks alone.
--   gold_rank    the gold chunk's rank among the retrieved chunks (NULL when not retrieved)
--   top_k        the run's k (run_settings)
--   recall_at_k  1 when the gold chunk is retrieved at rank <= top_k, else 0; NULL without a gold chunk
-- retrieval_eval adds the retriever's score of the gold chunk and a label; the headline metrics
-- and question_outcomes read this view, which scores no (question, chunk) pair.
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    q.gold_chunk_id,
    r.rank                                  AS gold_rank,
    s.top_k,
    CASE
        WHEN q.gold_chunk_id IS NULL THEN NULL
        WHEN r.rank <= s.top_k THEN 1
        ELSE 0
    END                                     AS recall_at_k
FROM questions AS q
JOIN run_settings AS s
    ON s.run_id = q.run_id
LEFT JOIN retrievals AS r
    ON r.run_id = q.run_id AND r.question_id = q.question_id AND r.chunk_id = q.gold_chunk_id
