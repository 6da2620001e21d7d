-- One row per question expecting an answer (not a refusal) whose norm(gold) is inside the
-- norm(text) of a chunk of its run: chunk_ordinal, the first such chunk in file order. This is
-- the rule `cases` and `case_scores` apply; how each gold is searched:
--   an empty gold      is inside every chunk text: the run's first chunk, no text searched
--   one or two words   every chunk text of the run
--   three or more      only the chunks holding its rarest inner word. norm() separates words by
--                      single spaces, so wherever norm(gold) occurs in norm(text), each word of
--                      the gold but its first and last (which may end or start a longer word)
--                      is a whole word of the text
WITH golds AS (
    SELECT
        run_id,
        question_id,
        gold_norm,
        -- the words between the first and the last space ('' without two spaces)
        CASE WHEN strpos(gold_norm, ' ') > 0 THEN
            substr(gold_norm, strpos(gold_norm, ' ') + 1,
                   greatest(length(gold_norm) - strpos(reverse(gold_norm), ' ') - strpos(gold_norm, ' '), 0))
        ELSE '' END AS inner_text
    FROM questions
    WHERE expected <> 'refuse'
),
inner_words AS (
    SELECT DISTINCT run_id, question_id, unnest(string_split(inner_text, ' ')) AS word
    FROM golds
    WHERE inner_text <> ''
),
chunk_words AS (
    -- the chunks holding each inner word of a gold of their run
    SELECT DISTINCT c.run_id, c.ordinal, c.word
    FROM (SELECT run_id, ordinal, unnest(text_words) AS word FROM chunks) AS c
    WHERE EXISTS (SELECT 1 FROM inner_words AS i WHERE i.run_id = c.run_id AND i.word = c.word)
),
rarest AS (
    SELECT i.run_id, i.question_id, arg_min(i.word, coalesce(f.chunks, 0)) AS word
    FROM inner_words AS i
    LEFT JOIN (SELECT run_id, word, count(*) AS chunks FROM chunk_words GROUP BY run_id, word) AS f
        ON f.run_id = i.run_id AND f.word = i.word
    GROUP BY i.run_id, i.question_id
)
SELECT g.run_id, g.question_id, min(c.ordinal) AS chunk_ordinal
FROM golds AS g
JOIN rarest AS r ON r.run_id = g.run_id AND r.question_id = g.question_id
JOIN chunk_words AS w ON w.run_id = r.run_id AND w.word = r.word
JOIN chunks AS c ON c.run_id = w.run_id AND c.ordinal = w.ordinal
WHERE strpos(c.text_norm, g.gold_norm) > 0
GROUP BY g.run_id, g.question_id
UNION ALL
SELECT g.run_id, g.question_id, min(c.ordinal) AS chunk_ordinal
FROM golds AS g
JOIN chunks AS c ON c.run_id = g.run_id AND strpos(c.text_norm, g.gold_norm) > 0
WHERE g.gold_norm <> '' AND g.inner_text = ''
GROUP BY g.run_id, g.question_id
UNION ALL
SELECT g.run_id, g.question_id, f.chunk_ordinal
FROM golds AS g
JOIN (SELECT run_id, min(ordinal) AS chunk_ordinal FROM chunks GROUP BY run_id) AS f ON f.run_id = g.run_id
WHERE g.gold_norm = ''
