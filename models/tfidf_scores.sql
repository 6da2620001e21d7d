-- One row per (question, chunk) with a tf-idf cosine above 0, for runs whose retriever is tfidf:
-- the dot product of their unit vectors (tfidf_units).
-- Equal word multisets get bit-identical scores, whatever the order of their words: the
-- norms are sums of DECIMAL squares and the dot product a sum of products scaled by 2^62 and
-- rounded to whole numbers, so every sum is exact and its order cannot matter. The score is
-- the cosine to within 1e-18, and ties are real ties (builtin_retrieval breaks them by id).
WITH dots AS (
    SELECT qu.run_id, qu.id AS question_id, cu.id AS chunk_id,
           sum(CAST(round(qu.u * cu.u * CAST(4611686018427387904 AS DOUBLE)) AS BIGINT)) AS scaled
    FROM tfidf_units AS qu
    JOIN tfidf_units AS cu ON cu.run_id = qu.run_id AND cu.term = qu.term AND cu.side = 'chunk'
    WHERE qu.side = 'question'
    GROUP BY qu.run_id, qu.id, cu.id
)
SELECT
    run_id,
    question_id,
    chunk_id,
    CAST(scaled AS DOUBLE) / CAST(4611686018427387904 AS DOUBLE) AS score
FROM dots
WHERE scaled > 0
