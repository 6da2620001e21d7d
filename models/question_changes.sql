-- One row per (run, baseline, question in either run): the question in the baseline and in the
-- run, side by side, for every pair of run_pairs. Each column compares by its own rule, only
-- where both sides have a value:
--   outcome       'correct action' is good; leaving it is worse, reaching it better
--   exact_match, f1  higher is better (question_outcomes, answer_scores)
--   retrieval_ok, citation_ok, refusal_ok  true is good (case_scores)
--   worse_in, better_in  the columns that got worse or better, comma-separated (NULL: none)
--   change        'removed' (only in the baseline); for a question only in the run 'worse' when it
--                 fails (its outcome is not 'correct action') else 'new'; otherwise 'worse' when a
--                 column got worse, else 'better' when one got better, else 'same'
WITH paired AS (
    SELECT p.run_id, p.baseline_run_id, f.question_id
    FROM run_pairs AS p JOIN question_facts AS f ON f.run_id = p.run_id
    UNION
    SELECT p.run_id, p.baseline_run_id, f.question_id
    FROM run_pairs AS p JOIN question_facts AS f ON f.run_id = p.baseline_run_id
),
compared AS (
    SELECT
        k.run_id,
        k.baseline_run_id,
        k.question_id,
        o.question_id IS NULL AS only_in_run,
        n.question_id IS NULL AS only_in_baseline,
        COALESCE(n.ordinal, o.ordinal)       AS ordinal,
        COALESCE(n.question, o.question)     AS question,
        COALESCE(n.expected, o.expected)     AS expected,
        o.answer AS old_answer,              n.answer AS new_answer,
        o.action AS old_action,              n.action AS new_action,
        o.outcome AS old_outcome,            n.outcome AS new_outcome,
        o.exact_match AS old_exact_match,    n.exact_match AS new_exact_match,
        o.f1 AS old_f1,                      n.f1 AS new_f1,
        o.retrieval_ok AS old_retrieval_ok,  n.retrieval_ok AS new_retrieval_ok,
        o.citation_ok AS old_citation_ok,    n.citation_ok AS new_citation_ok,
        o.refusal_ok AS old_refusal_ok,      n.refusal_ok AS new_refusal_ok,
        concat_ws(', ',
            CASE WHEN o.outcome = 'correct action' AND n.outcome <> 'correct action' THEN 'outcome' END,
            CASE WHEN n.exact_match < o.exact_match THEN 'exact_match' END,
            CASE WHEN n.f1 < o.f1 THEN 'f1' END,
            CASE WHEN o.retrieval_ok AND NOT n.retrieval_ok THEN 'retrieval' END,
            CASE WHEN o.citation_ok AND NOT n.citation_ok THEN 'citation' END,
            CASE WHEN o.refusal_ok AND NOT n.refusal_ok THEN 'refusal' END) AS worse_text,
        concat_ws(', ',
            CASE WHEN o.outcome <> 'correct action' AND n.outcome = 'correct action' THEN 'outcome' END,
            CASE WHEN n.exact_match > o.exact_match THEN 'exact_match' END,
            CASE WHEN n.f1 > o.f1 THEN 'f1' END,
            CASE WHEN NOT o.retrieval_ok AND n.retrieval_ok THEN 'retrieval' END,
            CASE WHEN NOT o.citation_ok AND n.citation_ok THEN 'citation' END,
            CASE WHEN NOT o.refusal_ok AND n.refusal_ok THEN 'refusal' END) AS better_text
    FROM paired AS k
    LEFT JOIN question_facts AS n ON n.run_id = k.run_id AND n.question_id = k.question_id
    LEFT JOIN question_facts AS o ON o.run_id = k.baseline_run_id AND o.question_id = k.question_id
)
SELECT
    run_id, baseline_run_id, question_id, ordinal, question, expected,
    old_answer, new_answer, old_action, new_action, old_outcome, new_outcome,
    old_exact_match, new_exact_match, old_f1, new_f1,
    old_retrieval_ok, new_retrieval_ok, old_citation_ok, new_citation_ok, old_refusal_ok, new_refusal_ok,
    NULLIF(worse_text, '')  AS worse_in,
    NULLIF(better_text, '') AS better_in,
    CASE
        WHEN only_in_baseline THEN 'removed'
        WHEN only_in_run THEN CASE WHEN new_outcome <> 'correct action' THEN 'worse' ELSE 'new' END
        WHEN worse_text <> '' THEN 'worse'
        WHEN better_text <> '' THEN 'better'
        ELSE 'same'
    END AS change
FROM compared
