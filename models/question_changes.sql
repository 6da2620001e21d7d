-- One row per (run, baseline, question in either run): the question in the baseline and in the
-- run, side by side, for every pair of run_pairs (two runs of one dataset). Each column compares
-- by its own rule, only where both sides have a value:
--   outcome       'correct action' is good; leaving it is worse, reaching it better
--   exact_match, f1  higher is better (question_outcomes, answer_scores)
--   retrieval_ok, citation_ok, refusal_ok  true is good (case_scores)
--   worse_in, better_in  every column that got worse or better, comma-separated (NULL: none)
--   change        'removed' (only in the baseline); for a question only in the run 'worse' when it
--                 fails (its outcome is not 'correct action') else 'new'; otherwise decided by what
--                 matters most, the first that moved of:
--                   1. the outcome (reaching 'correct action' is better, leaving it worse)
--                   2. the answer score: F1, else exact match where F1 is the same
--                   3. the three axes: 'worse' when one got worse, else 'better' when one got better
--                 so a fixed outcome is 'better' even where an axis fell (a wrong answer turned into
--                 a correct refusal cites nothing, which note 003's citation axis scores BAD when a
--                 chunk was retrieved); else 'same'
--   severity      how bad a 'worse' row is, higher first (NULL for any other change):
--                   5      an answer given to a question that must not be answered (expected refuse
--                          or flag_premise), where the baseline acted correctly, or a new one
--                   4      any other outcome lost: correct action -> wrong action or failed before
--                          reading (or a new question that fails)
--                   3      (claim_changes: a SUPPORTED claim now failing, or a new failing claim)
--                   1 + d  the answer score fell by d (F1, else exact match): 1 < severity <= 2
--                   1      only an axis got worse
--   reason        one line saying why the change is what it is (NULL for 'same')
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
        -- 1: reached 'correct action', -1: left it, 0: neither (or a side has no outcome)
        CASE
            WHEN o.outcome = 'correct action' AND n.outcome <> 'correct action' THEN -1
            WHEN o.outcome <> 'correct action' AND n.outcome = 'correct action' THEN 1
            ELSE 0
        END AS outcome_move,
        -- how far the answer score fell (negative: rose): F1's change, else exact match's
        COALESCE(NULLIF(o.f1 - n.f1, 0), o.exact_match - n.exact_match, 0) AS score_drop,
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
            CASE WHEN NOT o.refusal_ok AND n.refusal_ok THEN 'refusal' END) AS better_text,
        concat_ws(', ',
            CASE WHEN o.retrieval_ok AND NOT n.retrieval_ok THEN 'retrieval' END,
            CASE WHEN o.citation_ok AND NOT n.citation_ok THEN 'citation' END,
            CASE WHEN o.refusal_ok AND NOT n.refusal_ok THEN 'refusal' END) AS axes_worse,
        concat_ws(', ',
            CASE WHEN NOT o.retrieval_ok AND n.retrieval_ok THEN 'retrieval' END,
            CASE WHEN NOT o.citation_ok AND n.citation_ok THEN 'citation' END,
            CASE WHEN NOT o.refusal_ok AND n.refusal_ok THEN 'refusal' END) AS axes_better
    FROM paired AS k
    LEFT JOIN question_facts AS n ON n.run_id = k.run_id AND n.question_id = k.question_id
    LEFT JOIN question_facts AS o ON o.run_id = k.baseline_run_id AND o.question_id = k.question_id
),
labelled AS (
    SELECT
        *,
        CASE
            WHEN only_in_baseline THEN 'removed'
            WHEN only_in_run THEN CASE WHEN new_outcome <> 'correct action' THEN 'worse' ELSE 'new' END
            WHEN outcome_move < 0 THEN 'worse'
            WHEN outcome_move > 0 THEN 'better'
            WHEN score_drop > 0 THEN 'worse'
            WHEN score_drop < 0 THEN 'better'
            WHEN axes_worse <> '' THEN 'worse'
            WHEN axes_better <> '' THEN 'better'
            ELSE 'same'
        END AS change,
        -- what the run's response did, beside what the question expects
        ' (expected ' || expected || ', the response did ' || COALESCE(new_action, 'nothing') || ')' AS acted,
        -- a correct refusal that note 003's citation axis scores BAD: it cites nothing, a chunk was retrieved
        CASE
            WHEN new_action = 'refuse' AND expected = 'refuse' AND NOT new_citation_ok
            THEN '; citation BAD as note 003 scores a refusal: it cites nothing while a chunk was retrieved'
            ELSE ''
        END AS refusal_note
    FROM compared
)
SELECT
    run_id, baseline_run_id, question_id, ordinal, question, expected,
    old_answer, new_answer, old_action, new_action, old_outcome, new_outcome,
    old_exact_match, new_exact_match, old_f1, new_f1,
    old_retrieval_ok, new_retrieval_ok, old_citation_ok, new_citation_ok, old_refusal_ok, new_refusal_ok,
    NULLIF(worse_text, '')  AS worse_in,
    NULLIF(better_text, '') AS better_in,
    change,
    CASE
        WHEN change <> 'worse' THEN NULL
        WHEN (outcome_move < 0 OR only_in_run) AND expected <> 'answer' AND new_action = 'answer' THEN 5.0
        WHEN outcome_move < 0 OR only_in_run THEN 4.0
        WHEN score_drop > 0 THEN 1.0 + score_drop
        ELSE 1.0
    END AS severity,
    CASE
        WHEN change = 'same' THEN NULL
        WHEN only_in_baseline THEN 'only in the baseline'
        WHEN only_in_run THEN 'new question: ' || COALESCE(new_outcome, 'no response') || acted
        WHEN outcome_move <> 0 THEN 'outcome ' || old_outcome || ' -> ' || new_outcome || acted || refusal_note
        WHEN score_drop <> 0 AND old_f1 <> new_f1
            THEN 'f1 ' || CAST(round(old_f1, 3) AS VARCHAR) || ' -> ' || CAST(round(new_f1, 3) AS VARCHAR)
                 || refusal_note
        WHEN score_drop <> 0
            THEN 'exact match ' || CAST(old_exact_match AS VARCHAR) || ' -> ' || CAST(new_exact_match AS VARCHAR)
                 || refusal_note
        WHEN change = 'worse' THEN axes_worse || ' got worse' || refusal_note
        ELSE axes_better || ' got better' || refusal_note
    END AS reason
FROM labelled
