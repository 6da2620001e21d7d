-- One row per question with acceptable answers: the extractive baseline, the first sentence
-- of its top-ranked chunk, and whether that sentence contains an acceptable answer (its
-- SQuAD tokens appear as a contiguous run of the sentence's tokens). sentence is NULL and
-- contains_acceptable false when nothing was retrieved.
WITH top_chunk AS (
    SELECT r.run_id, r.question_id, t.first_sentence, n.sentence_tokens
    FROM retrievals AS r
    JOIN chunk_refs AS c ON c.run_id = r.run_id AND c.chunk_id = r.chunk_id
    JOIN chunk_texts AS t ON t.text_hash = c.text_hash
    LEFT JOIN sentence_norms AS n ON n.text_hash = c.text_hash
    WHERE r.rank = 1
),
matches AS (
    SELECT DISTINCT q.run_id, q.question_id
    FROM questions AS q
    JOIN top_chunk AS t ON t.run_id = q.run_id AND t.question_id = q.question_id,
    unnest(q.acceptable_tokens) AS v(reference)
    WHERE len(v.reference) > 0
      AND contains(' ' || t.sentence_tokens || ' ',
                   ' ' || array_to_string(v.reference, ' ') || ' ')
)
SELECT
    q.run_id,
    q.question_id,
    t.first_sentence          AS sentence,
    m.question_id IS NOT NULL AS contains_acceptable
FROM questions AS q
LEFT JOIN top_chunk AS t ON t.run_id = q.run_id AND t.question_id = q.question_id
LEFT JOIN matches AS m ON m.run_id = q.run_id AND m.question_id = q.question_id
WHERE len(q.acceptable_answers) > 0
