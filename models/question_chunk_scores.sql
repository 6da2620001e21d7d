-- One row per (question, chunk) that share at least one term: the overlap score, the
-- number of different non-stop terms (by the run's tokenizer; ascii terms are the
-- chapter's words) the question and the chunk share. Pairs sharing nothing have no row.
WITH question_term_rows AS (
    SELECT run_id, question_id, unnest(question_terms) AS term
    FROM questions
),
question_terms AS (
    SELECT DISTINCT run_id, question_id, term FROM question_term_rows AS t
    WHERE NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = t.run_id AND s.word = t.term)
),
chunk_term_rows AS (
    SELECT run_id, chunk_id, ordinal, unnest(text_terms) AS term
    FROM chunks
),
chunk_terms AS (
    -- only terms a question of the run holds: no other term can add to a score
    SELECT DISTINCT run_id, chunk_id, ordinal, term FROM chunk_term_rows AS c
    WHERE EXISTS (SELECT 1 FROM question_terms AS q WHERE q.run_id = c.run_id AND q.term = c.term)
)
SELECT
    qt.run_id,
    qt.question_id,
    ct.chunk_id,
    ct.ordinal AS chunk_ordinal,
    count(*)   AS score
FROM question_terms AS qt
JOIN chunk_terms AS ct
    ON ct.run_id = qt.run_id AND ct.term = qt.term
GROUP BY qt.run_id, qt.question_id, ct.chunk_id, ct.ordinal
