-- One row per run with responses: how refusals were used.
--   rightly  refused a question that expects a refusal
--   wrongly  refused an answerable question (expected answer or flag_premise)
--   missed   did not refuse a question that expects a refusal
--   phrase_misuse  a structured answer that is the refusal phrase (stripped as Python's
--                  str.strip() does) while its refused flag is not set: the phrase used without refusing
--   *_ids    the question ids of each, sorted
WITH uses AS (
    SELECT
        o.run_id,
        o.question_id,
        CASE
            WHEN o.action = 'refuse' AND q.expected = 'refuse' THEN 'rightly'
            WHEN o.action = 'refuse' THEN 'wrongly'
            WHEN q.expected = 'refuse' THEN 'missed'
        END AS use,
        s.reader_format = 'structured' AND NOT coalesce(o.refused, FALSE)
            AND trim(o.answer, w.chars) = s.refusal_phrase AS phrase_misuse
    FROM reader_outputs AS o
    JOIN questions AS q ON q.run_id = o.run_id AND q.question_id = o.question_id
    JOIN run_settings AS s ON s.run_id = o.run_id
    CROSS JOIN python_white_space AS w
)
SELECT
    run_id,
    count(*) FILTER (WHERE use = 'rightly') AS rightly,
    count(*) FILTER (WHERE use = 'wrongly') AS wrongly,
    count(*) FILTER (WHERE use = 'missed')  AS missed,
    count(*) FILTER (WHERE phrase_misuse)   AS phrase_misuse,
    COALESCE(list_sort(array_agg(question_id) FILTER (WHERE use = 'rightly')), CAST([] AS VARCHAR[])) AS rightly_ids,
    COALESCE(list_sort(array_agg(question_id) FILTER (WHERE use = 'wrongly')), CAST([] AS VARCHAR[])) AS wrongly_ids,
    COALESCE(list_sort(array_agg(question_id) FILTER (WHERE use = 'missed')), CAST([] AS VARCHAR[]))  AS missed_ids,
    COALESCE(list_sort(array_agg(question_id) FILTER (WHERE phrase_misuse)), CAST([] AS VARCHAR[])) AS phrase_misuse_ids
FROM uses
GROUP BY run_id
