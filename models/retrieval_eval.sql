-- One row per question: did retrieval find its gold chunk within the run's top k?
--   gold_rank    the gold chunk's rank among the retrieved chunks (NULL when not retrieved)
--   gold_score   the built-in retriever's score of the gold chunk (0 when it shares nothing)
--   recall_at_k  1 when the gold chunk is retrieved at rank <= top_k, else 0; NULL without a gold chunk
--   label        'retrieved at rank N' | 'not retrieved (all scores 0)' |
--                'not retrieved (below the top k)' | 'no gold chunk'
-- gold_rank and recall_at_k are retrieval_recall's. The gold chunk's score is retriever_scores'
-- for that one pair, computed for the gold pairs alone: the overlap score is the number of
-- shared non-stop terms (gold_overlap lists them), the tf-idf score the dot product of the
-- two unit vectors (tfidf_units), summed as tfidf_scores sums it (tests/test_retrieve_read.py
-- checks both against retriever_scores).
WITH gold_scores AS (
    SELECT o.run_id, o.question_id, CAST(array_length(o.shared_words) AS DOUBLE) AS score
    FROM gold_overlap AS o
    JOIN run_settings AS s ON s.run_id = o.run_id AND s.retriever = 'overlap'
    UNION ALL
    SELECT q.run_id, q.question_id,
           CAST(sum(CAST(round(qu.u * cu.u * CAST(4611686018427387904 AS DOUBLE)) AS BIGINT)) AS DOUBLE)
               / CAST(4611686018427387904 AS DOUBLE) AS score
    FROM questions AS q
    JOIN tfidf_units AS qu ON qu.run_id = q.run_id AND qu.side = 'question' AND qu.id = q.question_id
    JOIN tfidf_units AS cu
        ON cu.run_id = q.run_id AND cu.side = 'chunk' AND cu.id = q.gold_chunk_id AND cu.term = qu.term
    GROUP BY q.run_id, q.question_id
)
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
LEFT JOIN gold_scores AS sc
    ON sc.run_id = e.run_id AND sc.question_id = e.question_id
