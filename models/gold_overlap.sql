-- One row per question with a gold chunk: the content words (non-stop terms) the question
-- and its gold chunk share, sorted; an empty list explains a gold chunk scoring 0.
WITH shared AS (
    SELECT DISTINCT q.run_id, q.question_id, t.term
    FROM questions AS q
    JOIN chunks AS c
        ON c.run_id = q.run_id AND c.chunk_id = q.gold_chunk_id,
    unnest(q.question_terms) AS t(term)
    WHERE list_contains(c.text_terms, t.term)
      AND NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = q.run_id AND s.word = t.term)
)
SELECT
    q.run_id,
    q.question_id,
    COALESCE(array_agg(sh.term ORDER BY sh.term) FILTER (WHERE sh.term IS NOT NULL), CAST([] AS VARCHAR[]))
        AS shared_words
FROM questions AS q
LEFT JOIN shared AS sh
    ON sh.run_id = q.run_id AND sh.question_id = q.question_id
WHERE q.gold_chunk_id IS NOT NULL
GROUP BY q.run_id, q.question_id
