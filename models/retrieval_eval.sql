-- One row per question: did retrieval find its gold chunk within the run's top k?
--   gold_rank    the gold chunk's rank among the retrieved chunks (NULL when not retrieved)
--   gold_score   the built-in retriever's score of the gold chunk (0 when it shares nothing)
--   recall_at_k  1 when the gold chunk is retrieved at rank <= top_k, else 0; NULL without a gold chunk
--   label        'retrieved at rank N' | 'not retrieved (all scores 0)' |
--                'not retrieved (below the top k)' | 'no gold chunk'
-- gold_rank and recall_at_k are retrieval_recall's; the score needs every pair's (retriever_scores).
SELECT
    e.run_id,
    e.question_id,
    e.ordinal,
    e.expected,
    e.gold_chunk_id,
    e.gold_rank,
    COALESCE(sc.score, 0)                   AS gold_score,
    e.recall_at_k,
    CASE
        WHEN e.gold_chunk_id IS NULL THEN 'no gold chunk'
        WHEN e.recall_at_k = 1 THEN 'retrieved at rank ' || e.gold_rank
        WHEN COALESCE(sc.score, 0) = 0 THEN 'not retrieved (all scores 0)'
        ELSE 'not retrieved (below the top ' || e.top_k || ')'
    END                                     AS label
FROM retrieval_recall AS e
LEFT JOIN retriever_scores AS sc
    ON sc.run_id = e.run_id AND sc.question_id = e.question_id AND sc.chunk_id = e.gold_chunk_id
