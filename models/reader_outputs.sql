-- One row per response: the reader's raw output, its strict parse, and the action it took.
--   parse_ok  the trimmed output is exactly "Answer: <text>" then "Sources: <ids>"
--   answer    the answer text (NULL on a parse failure); sources: the cited ids
--   action    parse_failure | refuse | flag_premise (the answer starts with the premise
--             marker) | answer. A structured response refuses exactly when its own refused
--             flag says so (the three-axis note's rule); a two-line response when its answer
--             starts with the abstain marker (the retrieve-then-read lesson's parser: an answer
--             that is the refusal phrase is an answer); a bracket response when its answer,
--             stripped as Python's str.strip() does, is exactly the refusal phrase (note 002's
--             "answer exactly") or starts with the abstain marker
--   refused   the structured response's own refused flag (NULL for other formats)
SELECT
    r.run_id,
    r.question_id,
    r.ordinal,
    r.output,
    r.parse_ok,
    r.answer,
    r.sources,
    r.refused,
    CASE
        WHEN NOT r.parse_ok THEN 'parse_failure'
        WHEN s.reader_format = 'structured' AND r.refused THEN 'refuse'
        WHEN s.reader_format = 'structured' THEN
            CASE WHEN starts_with(r.answer, s.premise_marker) THEN 'flag_premise' ELSE 'answer' END
        WHEN s.reader_format = 'bracket' AND trim(r.answer, w.chars) = s.refusal_phrase THEN 'refuse'
        WHEN starts_with(r.answer, s.abstain_marker) THEN 'refuse'
        WHEN starts_with(r.answer, s.premise_marker) THEN 'flag_premise'
        ELSE 'answer'
    END AS action
FROM responses AS r
JOIN run_settings AS s
    ON s.run_id = r.run_id
CROSS JOIN python_white_space AS w
