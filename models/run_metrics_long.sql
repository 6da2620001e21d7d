-- One row per (run, metric): every headline metric of a run as a number, the shape
-- metrics_history stores and `evalwh check` reads; position orders them for display. Metrics:
--   claims, uncited, dangling, unsupported, number_mismatch, supported   (claim counts)
--   supported_share (citation recall), pairs, sound_pairs, pair_precision (citation precision)
--   questions, best_correct (most correct refusal decisions over the swept thresholds)
--   recall_at_k (share of questions with a gold chunk that retrieved it in the top k),
--   action_accuracy (share of responses whose action is the expected one), mean_em and
--   mean_f1 (over questions expecting an answer that have a response and acceptable answers),
--   held_for_review (responses failing a support-screen check)
--   retrieval_accuracy, citation_accuracy, refusal_accuracy (share of cases ok on each axis),
--   refusals_wrong, refusals_missed (refusal_use), judge_disagreement_rate (the highest of
--   any judge against the hand grades)
-- A metric that does not apply to the run (no gold chunks, no responses) is NULL.
WITH question_counts AS (
    SELECT r.run_id, count(q.question_id) AS questions
    FROM runs AS r
    LEFT JOIN questions AS q ON q.run_id = r.run_id
    GROUP BY r.run_id
),
best_sweep AS (
    SELECT run_id, max(correct) AS best_correct
    FROM threshold_sweep
    GROUP BY run_id
),
retrieval AS (
    SELECT run_id, avg(recall_at_k) AS recall_at_k FROM retrieval_eval GROUP BY run_id
),
actions AS (
    SELECT run_id, exact_matches / total AS action_accuracy FROM policy_baselines WHERE policy = 'observed'
),
answers AS (
    SELECT run_id, avg(exact_match) AS mean_em, avg(f1) AS mean_f1 FROM answer_scores GROUP BY run_id
),
review AS (
    SELECT run_id, count(*) FILTER (WHERE held_for_review) AS held FROM support_screen GROUP BY run_id
),
axes AS (
    SELECT run_id, retrieval_ok / cases AS retrieval, citation_ok / cases AS citation, refusal_ok / cases AS refusal
    FROM case_score_summary
),
judges AS (
    SELECT run_id, max(disagreement_rate) AS rate FROM grader_agreement GROUP BY run_id
)
SELECT run_id, 1 AS position, 'claims' AS metric, CAST(claims AS DOUBLE) AS value FROM run_metrics
UNION ALL SELECT run_id,  2, 'uncited',         CAST(uncited AS DOUBLE)         FROM run_metrics
UNION ALL SELECT run_id,  3, 'dangling',        CAST(dangling AS DOUBLE)        FROM run_metrics
UNION ALL SELECT run_id,  4, 'unsupported',     CAST(unsupported AS DOUBLE)     FROM run_metrics
UNION ALL SELECT run_id,  5, 'number_mismatch', CAST(number_mismatch AS DOUBLE) FROM run_metrics
UNION ALL SELECT run_id,  6, 'supported',       CAST(supported AS DOUBLE)       FROM run_metrics
UNION ALL SELECT run_id,  7, 'supported_share', supported_share                 FROM run_metrics
UNION ALL SELECT run_id,  8, 'pairs',           CAST(pairs AS DOUBLE)           FROM run_metrics
UNION ALL SELECT run_id,  9, 'sound_pairs',     CAST(sound_pairs AS DOUBLE)     FROM run_metrics
UNION ALL SELECT run_id, 10, 'pair_precision',  pair_precision                  FROM run_metrics
UNION ALL SELECT run_id, 11, 'questions',       CAST(questions AS DOUBLE)       FROM question_counts
UNION ALL SELECT q.run_id, 12, 'best_correct',  CAST(b.best_correct AS DOUBLE)
          FROM question_counts AS q LEFT JOIN best_sweep AS b ON b.run_id = q.run_id
UNION ALL SELECT q.run_id, 13, 'recall_at_k',     r.recall_at_k
          FROM question_counts AS q LEFT JOIN retrieval AS r ON r.run_id = q.run_id
UNION ALL SELECT q.run_id, 14, 'action_accuracy', a.action_accuracy
          FROM question_counts AS q LEFT JOIN actions AS a ON a.run_id = q.run_id
UNION ALL SELECT q.run_id, 15, 'mean_em',         s.mean_em
          FROM question_counts AS q LEFT JOIN answers AS s ON s.run_id = q.run_id
UNION ALL SELECT q.run_id, 16, 'mean_f1',         s.mean_f1
          FROM question_counts AS q LEFT JOIN answers AS s ON s.run_id = q.run_id
UNION ALL SELECT q.run_id, 17, 'held_for_review', CAST(v.held AS DOUBLE)
          FROM question_counts AS q LEFT JOIN review AS v ON v.run_id = q.run_id
UNION ALL SELECT q.run_id, 18, 'retrieval_accuracy', x.retrieval
          FROM question_counts AS q LEFT JOIN axes AS x ON x.run_id = q.run_id
UNION ALL SELECT q.run_id, 19, 'citation_accuracy', x.citation
          FROM question_counts AS q LEFT JOIN axes AS x ON x.run_id = q.run_id
UNION ALL SELECT q.run_id, 20, 'refusal_accuracy', x.refusal
          FROM question_counts AS q LEFT JOIN axes AS x ON x.run_id = q.run_id
UNION ALL SELECT q.run_id, 21, 'refusals_wrong',  CAST(u.wrongly AS DOUBLE)
          FROM question_counts AS q LEFT JOIN refusal_use AS u ON u.run_id = q.run_id
UNION ALL SELECT q.run_id, 22, 'refusals_missed', CAST(u.missed AS DOUBLE)
          FROM question_counts AS q LEFT JOIN refusal_use AS u ON u.run_id = q.run_id
UNION ALL SELECT q.run_id, 23, 'judge_disagreement_rate', j.rate
          FROM question_counts AS q LEFT JOIN judges AS j ON j.run_id = q.run_id
