-- One row per (run, question): what question_changes compares of the question in that run, each
-- from the view that decides it, NULL where that view has no row for the question:
--   answer               reader_outputs (the parsed answer of its response)
--   action, outcome      question_outcomes ('correct action', 'wrong action' or
--                        'failed before reading')
--   exact_match, f1      answer_scores
--   retrieval_ok, citation_ok, refusal_ok  case_scores
-- A filter on one run_id reaches the tables under those views: the comparison of two large runs
-- reads each run's rows this way before putting them side by side.
SELECT
    q.run_id,
    q.question_id,
    q.ordinal,
    q.question,
    q.expected,
    o.answer,
    u.action,
    u.outcome,
    a.exact_match,
    a.f1,
    s.retrieval_ok,
    s.citation_ok,
    s.refusal_ok
FROM questions AS q
LEFT JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
LEFT JOIN question_outcomes AS u ON u.run_id = q.run_id AND u.question_id = q.question_id
LEFT JOIN answer_scores AS a ON a.run_id = q.run_id AND a.question_id = q.question_id
LEFT JOIN case_scores AS s ON s.run_id = q.run_id AND s.question_id = q.question_id
