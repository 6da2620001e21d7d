-- One row per question expecting an answer (not a refusal) whose norm(gold) is inside the
-- norm(text) of a chunk of its run: chunk_ordinal, the first such chunk in file order. This is
-- the rule `cases` and `case_scores` apply. norm() separates words by single spaces, so where
-- norm(gold) occurs in norm(text), each of the gold's words but its first and last is a whole
-- word of the text, and its first word lies inside one word of the text. Each gold is looked
-- for only in the chunk texts that must hold it if any does:
--   an empty gold      is inside every chunk text: the run's first chunk, no text searched
--   one word           the chunks with a word that contains it
--   two words          the chunks with a word that ends with the first
--   three or more      the chunks holding the gold's rarest inner word
WITH golds AS (
    SELECT
        run_id,
        question_id,
        gold_norm,
        split_part(gold_norm, ' ', 1) AS first_word,
        -- the words between the first and the last space ('' without two spaces)
        CASE WHEN strpos(gold_norm, ' ') > 0 THEN
            substr(gold_norm, strpos(gold_norm, ' ') + 1,
                   greatest(length(gold_norm) - strpos(reverse(gold_norm), ' ') - strpos(gold_norm, ' '), 0))
        ELSE '' END AS inner_text
    FROM questions
    WHERE expected <> 'refuse' AND gold_norm <> ''
),
inner_words AS (
    SELECT DISTINCT run_id, question_id, unnest(string_split(inner_text, ' ')) AS word
    FROM golds
    WHERE inner_text <> ''
),
vocabulary AS (
    -- the distinct words of the chunks of each run with a gold of one or two words
    SELECT DISTINCT c.run_id, c.word
    FROM (SELECT run_id, unnest(text_words) AS word FROM chunks) AS c
    WHERE EXISTS (SELECT 1 FROM golds AS g WHERE g.run_id = c.run_id AND g.inner_text = '')
),
part_words AS (
    -- for a gold of one word: each word of its run that contains it; of two words: each word
    -- of its run that ends with the first (the text's next word starts with the second)
    SELECT DISTINCT g.run_id, g.question_id, v.word
    FROM golds AS g
    JOIN vocabulary AS v
        ON v.run_id = g.run_id
       AND CASE WHEN g.first_word = g.gold_norm THEN strpos(v.word, g.first_word) > 0
                ELSE right(v.word, length(g.first_word)) = g.first_word END
    WHERE g.inner_text = ''
),
rarest AS (
    -- each gold's inner word held by the fewest chunks, counted as the chunks stream past
    SELECT i.run_id, i.question_id, arg_min(i.word, coalesce(f.chunks, 0)) AS word
    FROM inner_words AS i
    LEFT JOIN (
        SELECT w.run_id, w.word, count(*) AS chunks
        FROM (SELECT run_id, unnest(list_distinct(text_words)) AS word FROM chunks) AS w
        WHERE EXISTS (SELECT 1 FROM inner_words AS i WHERE i.run_id = w.run_id AND i.word = w.word)
        GROUP BY w.run_id, w.word
    ) AS f
        ON f.run_id = i.run_id AND f.word = i.word
    GROUP BY i.run_id, i.question_id
),
sought AS (
    -- a gold's rarest inner word, or each word its one or two words may lie in, joined with the
    -- golds they come from: DuckDB then estimates them as few as they are, and hashes them, not the
    -- chunks' words, which it estimates as one per chunk
    SELECT w.run_id, w.question_id, w.word
    FROM golds AS g
    JOIN (SELECT run_id, question_id, word FROM rarest
          UNION ALL
          SELECT run_id, question_id, word FROM part_words) AS w
        ON w.run_id = g.run_id AND w.question_id = g.question_id
)
-- each chunk's distinct words (distinct within its own list), each with the chunk's text, streamed
-- past the words sought: neither every (chunk, word) of the runs nor their texts are held in memory.
-- The gold is looked up by its question in a scalar subquery rather than joined: so written, DuckDB
-- plans case_scores of a run without responses as empty and never searches (tests/test_gold_matches.py)
SELECT s.run_id, s.question_id, min(c.ordinal) AS chunk_ordinal
FROM (SELECT run_id, ordinal, text_norm, unnest(list_distinct(text_words)) AS word FROM chunks) AS c
JOIN sought AS s ON s.run_id = c.run_id AND s.word = c.word
WHERE strpos(c.text_norm,
             (SELECT g.gold_norm FROM golds AS g WHERE g.run_id = s.run_id AND g.question_id = s.question_id)) > 0
GROUP BY s.run_id, s.question_id
UNION ALL
SELECT q.run_id, q.question_id, f.chunk_ordinal
FROM questions AS q
JOIN (SELECT run_id, min(ordinal) AS chunk_ordinal FROM chunks GROUP BY run_id) AS f ON f.run_id = q.run_id
WHERE q.expected <> 'refuse' AND q.gold_norm = ''
