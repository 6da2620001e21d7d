-- One row per (question, chunk) scored above 0 by the run's built-in retriever:
-- the overlap score (question_chunk_scores) or the tf-idf cosine (tfidf_scores).
SELECT o.run_id, o.question_id, o.chunk_id, CAST(o.score AS DOUBLE) AS score
FROM question_chunk_scores AS o
JOIN run_settings AS s ON s.run_id = o.run_id AND s.retriever = 'overlap'
UNION ALL
SELECT t.run_id, t.question_id, t.chunk_id, t.score
FROM tfidf_scores AS t
