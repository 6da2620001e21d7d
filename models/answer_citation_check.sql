-- One row per bracket-format answer: the note's citation check.
--   passages                    how many passages were shown: the question's retrieved chunks
--   invalid_citations           marker numbers outside 1..passages, distinct and sorted
--   sentences_without_citation  sentences with no marker and more than 5 words
--   ok                          no invalid citation and no uncited sentence
WITH passages AS (
    SELECT run_id, question_id, count(*) AS n FROM retrievals GROUP BY run_id, question_id
),
answers AS (
    SELECT DISTINCT run_id, question_id FROM response_sentences
),
invalid AS (
    SELECT s.run_id, s.question_id, array_agg(DISTINCT m.n ORDER BY m.n) AS numbers
    FROM response_sentences AS s, unnest(s.markers) AS m(n)
    LEFT JOIN passages AS p ON p.run_id = s.run_id AND p.question_id = s.question_id
    WHERE m.n < 1 OR m.n > COALESCE(p.n, 0)
    GROUP BY s.run_id, s.question_id
),
uncited AS (
    SELECT run_id, question_id, count(*) FILTER (WHERE uncited) AS n
    FROM answer_sentences
    GROUP BY run_id, question_id
)
SELECT
    a.run_id,
    a.question_id,
    COALESCE(p.n, 0)                                     AS passages,
    COALESCE(i.numbers, CAST([] AS INTEGER[]))           AS invalid_citations,
    COALESCE(u.n, 0)                                     AS sentences_without_citation,
    i.numbers IS NULL AND COALESCE(u.n, 0) = 0           AS ok
FROM answers AS a
LEFT JOIN passages AS p ON p.run_id = a.run_id AND p.question_id = a.question_id
LEFT JOIN invalid AS i ON i.run_id = a.run_id AND i.question_id = a.question_id
LEFT JOIN uncited AS u ON u.run_id = a.run_id AND u.question_id = a.question_id
