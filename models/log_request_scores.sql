-- One row per (run, production request): the best overlap score of its question over the
-- run's chunks, by the run's tokenizer and stop words: the score the threshold sweep uses.
WITH request_term_rows AS (
    SELECT s.run_id, l.source, l.request_id,
           unnest(CASE WHEN s.tokenizer = 'unicode' THEN l.question_uterms ELSE l.question_words END) AS term
    FROM run_settings AS s
    CROSS JOIN log_requests AS l
),
request_terms AS (
    SELECT DISTINCT t.run_id, t.source, t.request_id, t.term
    FROM request_term_rows AS t
    WHERE NOT EXISTS (SELECT 1 FROM run_stopwords AS w WHERE w.run_id = t.run_id AND w.word = t.term)
),
chunk_term_rows AS (
    SELECT run_id, chunk_id, unnest(text_terms) AS term
    FROM chunks
),
chunk_terms AS (
    -- only terms a request's question holds: no other term can add to a score
    SELECT DISTINCT run_id, chunk_id, term FROM chunk_term_rows AS c
    WHERE EXISTS (SELECT 1 FROM request_terms AS q WHERE q.run_id = c.run_id AND q.term = c.term)
),
scores AS (
    SELECT q.run_id, q.source, q.request_id, c.chunk_id, count(*) AS score
    FROM request_terms AS q
    JOIN chunk_terms AS c ON c.run_id = q.run_id AND c.term = q.term
    GROUP BY q.run_id, q.source, q.request_id, c.chunk_id
),
best AS (
    SELECT run_id, source, request_id, max(score) AS best_score
    FROM scores
    GROUP BY run_id, source, request_id
)
SELECT
    r.run_id,
    l.source,
    l.request_id,
    l.refused,
    COALESCE(b.best_score, 0) AS best_score
FROM runs AS r
CROSS JOIN log_requests AS l
LEFT JOIN best AS b ON b.run_id = r.run_id AND b.source = l.source AND b.request_id = l.request_id
