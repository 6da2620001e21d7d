-- One row per question with a gold chunk: the content words (non-stop terms) the question
-- and its gold chunk share, sorted; an empty list explains a gold chunk scoring 0.
WITH terms AS (
    SELECT run_id, question_id, gold_chunk_id, unnest(question_terms) AS term
    FROM questions
    WHERE gold_chunk_id IS NOT NULL
),
shared AS (
    SELECT DISTINCT t.run_id, t.question_id, t.term
    FROM terms AS t
    JOIN chunks AS c
        ON c.run_id = t.run_id AND c.chunk_id = t.gold_chunk_id
    WHERE list_contains(c.text_terms, t.term)
      AND NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = t.run_id AND s.word = t.term)
)
SELECT
    q.run_id,
    q.question_id,
    COALESCE(list_sort(array_agg(sh.term) FILTER (WHERE sh.term IS NOT NULL)), CAST([] AS VARCHAR[]))
        AS shared_words
FROM questions AS q
LEFT JOIN shared AS sh
    ON sh.run_id = q.run_id AND sh.question_id = q.question_id
WHERE q.gold_chunk_id IS NOT NULL
GROUP BY q.run_id, q.question_id
