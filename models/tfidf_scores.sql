-- One row per (question, chunk) with a tf-idf cosine above 0, for runs whose retriever is tfidf.
--   terms are the stored *_terms minus the run's stop words; N is the run's chunk count
--   idf = ln(N / df); chunk weight = tf * idf; question weight = tf * idf over the question
--   terms that occur in some chunk; score = cosine of the two weight vectors.
WITH tfidf_runs AS (
    SELECT run_id FROM run_settings WHERE retriever = 'tfidf'
),
chunk_tf AS (
    SELECT c.run_id, c.chunk_id, t.term, count(*) AS tf
    FROM chunks AS c
    JOIN tfidf_runs AS r ON r.run_id = c.run_id,
    unnest(c.text_terms) AS t(term)
    WHERE NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = c.run_id AND s.word = t.term)
    GROUP BY c.run_id, c.chunk_id, t.term
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
    SELECT run_id, chunk_id, sqrt(sum(w * w)) AS norm FROM chunk_weights GROUP BY run_id, chunk_id
),
question_weights AS (
    SELECT q.run_id, q.question_id, t.term, count(*) * i.idf AS w
    FROM questions AS q,
         unnest(q.question_terms) AS t(term)
    JOIN idf AS i ON i.run_id = q.run_id AND i.term = t.term
    GROUP BY q.run_id, q.question_id, t.term, i.idf
),
question_norms AS (
    SELECT run_id, question_id, sqrt(sum(w * w)) AS norm FROM question_weights GROUP BY run_id, question_id
),
dots AS (
    SELECT qw.run_id, qw.question_id, cw.chunk_id, sum(qw.w * cw.w) AS dot
    FROM question_weights AS qw
    JOIN chunk_weights AS cw ON cw.run_id = qw.run_id AND cw.term = qw.term
    GROUP BY qw.run_id, qw.question_id, cw.chunk_id
)
SELECT
    d.run_id,
    d.question_id,
    d.chunk_id,
    d.dot / (qn.norm * cn.norm) AS score
FROM dots AS d
JOIN question_norms AS qn ON qn.run_id = d.run_id AND qn.question_id = d.question_id
JOIN chunk_norms AS cn ON cn.run_id = d.run_id AND cn.chunk_id = d.chunk_id
WHERE qn.norm > 0 AND cn.norm > 0 AND d.dot > 0
