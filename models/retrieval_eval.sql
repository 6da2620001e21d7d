-- One row per question: did retrieval find its gold chunk within the run's top k?
--   gold_rank    the gold chunk's rank among the retrieved chunks (NULL when not retrieved)
--   gold_score   the built-in retriever's score of the gold chunk (0 when it shares nothing)
--   recall_at_k  1 when the gold chunk is retrieved at rank <= top_k, else 0; NULL without a gold chunk
--   label        'retrieved at rank N' | 'not retrieved (all scores 0)' |
--                'not retrieved (below the top k)' | 'no gold chunk'
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.expected,
    q.gold_chunk_id,
    r.rank                                  AS gold_rank,
    COALESCE(sc.score, 0)                   AS gold_score,
    CASE
        WHEN q.gold_chunk_id IS NULL THEN NULL
        WHEN r.rank <= s.top_k THEN 1
        ELSE 0
    END                                     AS recall_at_k,
    CASE
        WHEN q.gold_chunk_id IS NULL THEN 'no gold chunk'
        WHEN r.rank <= s.top_k THEN 'retrieved at rank ' || r.rank
        WHEN COALESCE(sc.score, 0) = 0 THEN 'not retrieved (all scores 0)'
        ELSE 'not retrieved (below the top ' || s.top_k || ')'
    END                                     AS label
FROM questions AS q
JOIN run_settings AS s
    ON s.run_id = q.run_id
LEFT JOIN retrievals AS r
    ON r.run_id = q.run_id AND r.question_id = q.question_id AND r.chunk_id = q.gold_chunk_id
LEFT JOIN retriever_scores AS sc
    ON sc.run_id = q.run_id AND sc.question_id = q.question_id AND sc.chunk_id = q.gold_chunk_id
