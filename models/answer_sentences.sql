-- One row per sentence of a bracket-format answer.
--   markers            the [n] markers in the sentence, in order (decimal text)
--   chunk_ids          the chunks those markers name: marker n is the n-th retrieved chunk
--                      (markers outside 1..passages name nothing)
--   uncited            no marker and more than 5 words
--   numbers_supported  every number of the sentence (markers removed) is among the numbers
--                      of the chunks it cites
WITH passages AS (
    -- the retrieved chunks of each question, with their rank as decimal text (how markers are kept)
    SELECT run_id, question_id, array_agg(struct_pack(rank := CAST(rank AS VARCHAR), chunk_id := chunk_id)) AS ranked
    FROM retrievals
    GROUP BY run_id, question_id
),
cited AS (
    -- marker n names the chunk at rank n; in marker order, without positions
    SELECT
        s.run_id,
        s.question_id,
        s.sentence_no,
        CASE WHEN p.ranked IS NULL THEN CAST([] AS VARCHAR[])
             ELSE flatten(list_transform(s.markers, lambda m: list_transform(
                      list_filter(p.ranked, lambda r: r.rank = m), lambda r: r.chunk_id)))
        END AS chunk_ids
    FROM response_sentences AS s
    LEFT JOIN passages AS p ON p.run_id = s.run_id AND p.question_id = s.question_id
),
cited_chunks AS (
    SELECT run_id, question_id, sentence_no, unnest(chunk_ids) AS chunk_id
    FROM cited
),
sentence_numbers AS (
    SELECT run_id, question_id, sentence_no, unnest(numbers) AS number
    FROM response_sentences
),
supported_numbers AS (
    -- numbers of a sentence found among the numbers of a chunk it cites
    SELECT DISTINCT x.run_id, x.question_id, x.sentence_no, x.number
    FROM sentence_numbers AS x
    JOIN cited_chunks AS mc
        ON mc.run_id = x.run_id AND mc.question_id = x.question_id AND mc.sentence_no = x.sentence_no
    JOIN chunks AS c ON c.run_id = mc.run_id AND c.chunk_id = mc.chunk_id
    WHERE list_contains(c.text_numbers, x.number)
),
unsupported AS (
    SELECT x.run_id, x.question_id, x.sentence_no, count(*) AS n
    FROM sentence_numbers AS x
    LEFT JOIN supported_numbers AS sn
        ON sn.run_id = x.run_id AND sn.question_id = x.question_id AND sn.sentence_no = x.sentence_no
        AND sn.number = x.number
    WHERE sn.number IS NULL
    GROUP BY x.run_id, x.question_id, x.sentence_no
)
SELECT
    s.run_id,
    s.question_id,
    s.sentence_no,
    s.sentence,
    s.markers,
    ci.chunk_ids,
    array_length(s.markers) = 0 AND s.word_count > 5   AS uncited,
    COALESCE(u.n, 0) = 0                               AS numbers_supported
FROM response_sentences AS s
JOIN cited AS ci ON ci.run_id = s.run_id AND ci.question_id = s.question_id AND ci.sentence_no = s.sentence_no
LEFT JOIN unsupported AS u
    ON u.run_id = s.run_id AND u.question_id = s.question_id AND u.sentence_no = s.sentence_no
