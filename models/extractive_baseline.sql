-- One row per question with acceptable answers: the extractive baseline, the first sentence
-- of its top-ranked chunk (split after '.', '!' or '?' followed by white space), and whether
-- that sentence contains an acceptable answer: the method's test, a character substring of
-- the SQuAD-normalised texts (squad_normalize: lower-case, Unicode punctuation and symbols
-- deleted, the words a/an/the replaced by a space, white space squished), so "$150"
-- (normalised "150") is found in a sentence holding "1500". As in the retrieve-then-read lesson,
-- a variant that normalises to nothing is contained nowhere, and contains_acceptable is scored
-- for the questions that expect an answer only (NULL for the others). sentence is NULL and
-- contains_acceptable false when nothing was retrieved.
WITH top_chunk AS (
    SELECT r.run_id, r.question_id, t.first_sentence, n.sentence_norm
    FROM retrievals AS r
    JOIN chunk_refs AS c ON c.run_id = r.run_id AND c.chunk_id = r.chunk_id
    JOIN chunk_texts AS t ON t.text_hash = c.text_hash
    LEFT JOIN sentence_norms AS n ON n.text_hash = c.text_hash
    WHERE r.rank = 1
),
variants AS (
    SELECT run_id, question_id, unnest(acceptable_norms) AS variant
    FROM questions
),
matches AS (
    SELECT DISTINCT v.run_id, v.question_id
    FROM variants AS v
    JOIN top_chunk AS t ON t.run_id = v.run_id AND t.question_id = v.question_id
    WHERE v.variant <> '' AND contains(t.sentence_norm, v.variant)
)
SELECT
    q.run_id,
    q.question_id,
    t.first_sentence          AS sentence,
    CASE WHEN q.expected = 'answer' THEN m.question_id IS NOT NULL END AS contains_acceptable
FROM questions AS q
LEFT JOIN top_chunk AS t ON t.run_id = q.run_id AND t.question_id = q.question_id
LEFT JOIN matches AS m ON m.run_id = q.run_id AND m.question_id = q.question_id
WHERE array_length(q.acceptable_answers) > 0
