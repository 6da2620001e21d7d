-- One row per bracket-format answer: the note's citation check.
--   passages                    how many passages were shown: the question's retrieved chunks
--   invalid_citations           marker numbers outside 1..passages, distinct and sorted (as decimal
--                               text, so that a number of any size is reported as written)
--   sentences_without_citation  sentences with no marker and more than 5 words
--   ok                          no invalid citation and no uncited sentence
WITH passages AS (
    SELECT run_id, question_id, count(*) AS n FROM retrievals GROUP BY run_id, question_id
),
answers AS (
    -- every response of a bracket run: a blank answer has no sentences and is ok
    SELECT r.run_id, r.question_id
    FROM responses AS r JOIN run_settings AS s ON s.run_id = r.run_id
    WHERE s.reader_format = 'bracket'
),
marker_rows AS (
    SELECT run_id, question_id, unnest(markers) AS n
    FROM response_sentences
),
markers AS (
    SELECT DISTINCT run_id, question_id, n, TRY_CAST(n AS BIGINT) AS value
    FROM marker_rows
),
invalid AS (
    SELECT m.run_id, m.question_id,
           list_transform(list_sort(array_agg(struct_pack(width := length(m.n), n := m.n))), lambda x: x.n) AS numbers
    FROM markers AS m
    LEFT JOIN passages AS p ON p.run_id = m.run_id AND p.question_id = m.question_id
    WHERE m.value IS NULL OR m.value < 1 OR m.value > COALESCE(p.n, 0)
    GROUP BY m.run_id, m.question_id
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
    COALESCE(i.numbers, CAST([] AS VARCHAR[]))           AS invalid_citations,
    COALESCE(u.n, 0)                                     AS sentences_without_citation,
    i.numbers IS NULL AND COALESCE(u.n, 0) = 0           AS ok
FROM answers AS a
LEFT JOIN passages AS p ON p.run_id = a.run_id AND p.question_id = a.question_id
LEFT JOIN invalid AS i ON i.run_id = a.run_id AND i.question_id = a.question_id
LEFT JOIN uncited AS u ON u.run_id = a.run_id AND u.question_id = a.question_id
