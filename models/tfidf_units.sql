-- One row per (run, side, id, term) of a run whose retriever is tfidf: the term's weight in
-- the unit vector of a question (side 'question', id its question_id) or of a chunk (side
-- 'chunk', id its chunk_id). tfidf_scores' cosines are dot products of these vectors.
--   terms are the stored *_terms minus the run's stop words; N is the run's chunk count
--   idf = ln(N / df); chunk weight = tf * idf; question weight = tf * idf over the question
--   terms that occur in some chunk; u = weight / the vector's norm (a zero vector has no rows).
-- The norms are square roots of exact DECIMAL sums of squares, so equal word multisets get
-- bit-identical vectors whatever the order of their words.
-- The two sides are written out apart (one norm over a union of both took 7.4 s against 5.6 s
-- for tfidf_scores at 10,000 questions x 100,000 chunks: the side filter no longer reached the scans).
WITH tfidf_runs AS (
    SELECT run_id FROM run_settings WHERE retriever = 'tfidf'
),
chunk_term_rows AS (
    SELECT c.run_id, c.chunk_id, unnest(c.text_terms) AS term
    FROM chunks AS c
    JOIN tfidf_runs AS r ON r.run_id = c.run_id
),
chunk_tf AS (
    SELECT t.run_id, t.chunk_id, t.term, count(*) AS tf
    FROM chunk_term_rows AS t
    WHERE NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = t.run_id AND s.word = t.term)
    GROUP BY t.run_id, t.chunk_id, t.term
),
chunk_count AS (
    SELECT c.run_id, count(*) AS n
    FROM chunks AS c JOIN tfidf_runs AS r ON r.run_id = c.run_id
    GROUP BY c.run_id
),
idf AS (
    SELECT tf.run_id, tf.term, ln(n.n / count(*)) AS idf
    FROM chunk_tf AS tf JOIN chunk_count AS n ON n.run_id = tf.run_id
    GROUP BY tf.run_id, tf.term, n.n
),
chunk_weights AS (
    SELECT tf.run_id, tf.chunk_id, tf.term, tf.tf * i.idf AS w
    FROM chunk_tf AS tf JOIN idf AS i ON i.run_id = tf.run_id AND i.term = tf.term
),
chunk_norms AS (
    SELECT run_id, chunk_id, sqrt(CAST(sum(CAST(w * w AS DECIMAL(38, 18))) AS DOUBLE)) AS norm
    FROM chunk_weights GROUP BY run_id, chunk_id
),
chunk_units AS (
    SELECT w.run_id, w.chunk_id, w.term, w.w / n.norm AS u
    FROM chunk_weights AS w JOIN chunk_norms AS n ON n.run_id = w.run_id AND n.chunk_id = w.chunk_id
    WHERE n.norm > 0
),
question_term_rows AS (
    SELECT q.run_id, q.question_id, unnest(q.question_terms) AS term
    FROM questions AS q
    JOIN tfidf_runs AS r ON r.run_id = q.run_id
),
question_weights AS (
    SELECT t.run_id, t.question_id, t.term, count(*) * i.idf AS w
    FROM question_term_rows AS t
    JOIN idf AS i ON i.run_id = t.run_id AND i.term = t.term
    GROUP BY t.run_id, t.question_id, t.term, i.idf
),
question_norms AS (
    SELECT run_id, question_id, sqrt(CAST(sum(CAST(w * w AS DECIMAL(38, 18))) AS DOUBLE)) AS norm
    FROM question_weights GROUP BY run_id, question_id
),
question_units AS (
    SELECT w.run_id, w.question_id, w.term, w.w / n.norm AS u
    FROM question_weights AS w JOIN question_norms AS n ON n.run_id = w.run_id AND n.question_id = w.question_id
    WHERE n.norm > 0
)
SELECT run_id, 'chunk' AS side, chunk_id AS id, term, u FROM chunk_units
UNION ALL
SELECT run_id, 'question' AS side, question_id AS id, term, u FROM question_units
