-- One row per response: the reader's raw output, its strict parse, and the action it took.
--   parse_ok  the trimmed output is exactly "Answer: <text>" then "Sources: <ids>"
--   answer    the answer text (NULL on a parse failure); sources: the cited ids
--   action    parse_failure | refuse (answer starts with the abstain marker)
--             | flag_premise (starts with the premise marker) | answer
SELECT
    r.run_id,
    r.question_id,
    r.ordinal,
    r.output,
    r.parse_ok,
    r.answer,
    r.sources,
    CASE
        WHEN NOT r.parse_ok THEN 'parse_failure'
        WHEN starts_with(r.answer, s.abstain_marker) THEN 'refuse'
        WHEN starts_with(r.answer, s.premise_marker) THEN 'flag_premise'
        ELSE 'answer'
    END AS action
FROM responses AS r
JOIN run_settings AS s
    ON s.run_id = r.run_id
