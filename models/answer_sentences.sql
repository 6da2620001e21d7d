-- One row per sentence of a bracket-format answer.
--   markers            the [n] markers in the sentence, in order (decimal text)
--   chunk_ids          the chunks those markers name: marker n is the n-th retrieved chunk
--                      (markers outside 1..passages name nothing)
--   uncited            no marker and more than 5 words
--   numbers_supported  every number of the sentence (markers removed) is among the numbers
--                      of the chunks it cites
WITH marker_chunks AS (
    SELECT s.run_id, s.question_id, s.sentence_no, m.i, r.chunk_id
    FROM response_sentences AS s,
         unnest(s.markers) WITH ORDINALITY AS m(n, i)
    JOIN retrievals AS r ON r.run_id = s.run_id AND r.question_id = s.question_id AND CAST(r.rank AS VARCHAR) = m.n
),
unsupported AS (
    SELECT s.run_id, s.question_id, s.sentence_no, count(*) AS n
    FROM response_sentences AS s, unnest(s.numbers) AS x(number)
    WHERE NOT EXISTS (
        SELECT 1
        FROM marker_chunks AS mc
        JOIN chunks AS c ON c.run_id = mc.run_id AND c.chunk_id = mc.chunk_id
        WHERE mc.run_id = s.run_id AND mc.question_id = s.question_id AND mc.sentence_no = s.sentence_no
          AND list_contains(c.text_numbers, x.number)
    )
    GROUP BY s.run_id, s.question_id, s.sentence_no
)
SELECT
    s.run_id,
    s.question_id,
    s.sentence_no,
    s.sentence,
    s.markers,
    COALESCE((SELECT array_agg(mc.chunk_id ORDER BY mc.i) FROM marker_chunks AS mc
              WHERE mc.run_id = s.run_id AND mc.question_id = s.question_id AND mc.sentence_no = s.sentence_no),
             CAST([] AS VARCHAR[]))                    AS chunk_ids,
    len(s.markers) = 0 AND s.word_count > 5            AS uncited,
    COALESCE(u.n, 0) = 0                               AS numbers_supported
FROM response_sentences AS s
LEFT JOIN unsupported AS u
    ON u.run_id = s.run_id AND u.question_id = s.question_id AND u.sentence_no = s.sentence_no
