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
-- run_metrics is read once (per_run), then each run's row is unpivoted against metric_names.
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
    SELECT run_id, avg(recall_at_k) AS recall_at_k FROM retrieval_recall GROUP BY run_id
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
),
per_run AS (
    SELECT m.*, q.questions, b.best_correct, r.recall_at_k, a.action_accuracy, s.mean_em, s.mean_f1,
           v.held, x.retrieval, x.citation, x.refusal, u.wrongly, u.missed, j.rate
    FROM run_metrics AS m
    JOIN question_counts AS q ON q.run_id = m.run_id
    LEFT JOIN best_sweep AS b ON b.run_id = m.run_id
    LEFT JOIN retrieval AS r ON r.run_id = m.run_id
    LEFT JOIN actions AS a ON a.run_id = m.run_id
    LEFT JOIN answers AS s ON s.run_id = m.run_id
    LEFT JOIN review AS v ON v.run_id = m.run_id
    LEFT JOIN axes AS x ON x.run_id = m.run_id
    LEFT JOIN refusal_use AS u ON u.run_id = m.run_id
    LEFT JOIN judges AS j ON j.run_id = m.run_id
),
metric_names(position, metric) AS (VALUES
    (1, 'claims'), (2, 'uncited'), (3, 'dangling'), (4, 'unsupported'), (5, 'number_mismatch'),
    (6, 'supported'), (7, 'supported_share'), (8, 'pairs'), (9, 'sound_pairs'), (10, 'pair_precision'),
    (11, 'questions'), (12, 'best_correct'), (13, 'recall_at_k'), (14, 'action_accuracy'), (15, 'mean_em'),
    (16, 'mean_f1'), (17, 'held_for_review'), (18, 'retrieval_accuracy'), (19, 'citation_accuracy'),
    (20, 'refusal_accuracy'), (21, 'refusals_wrong'), (22, 'refusals_missed'), (23, 'judge_disagreement_rate')
)
SELECT
    p.run_id,
    n.position,
    n.metric,
    CASE n.metric
        WHEN 'claims'                  THEN CAST(p.claims AS DOUBLE)
        WHEN 'uncited'                 THEN CAST(p.uncited AS DOUBLE)
        WHEN 'dangling'                THEN CAST(p.dangling AS DOUBLE)
        WHEN 'unsupported'             THEN CAST(p.unsupported AS DOUBLE)
        WHEN 'number_mismatch'         THEN CAST(p.number_mismatch AS DOUBLE)
        WHEN 'supported'               THEN CAST(p.supported AS DOUBLE)
        WHEN 'supported_share'         THEN p.supported_share
        WHEN 'pairs'                   THEN CAST(p.pairs AS DOUBLE)
        WHEN 'sound_pairs'             THEN CAST(p.sound_pairs AS DOUBLE)
        WHEN 'pair_precision'          THEN p.pair_precision
        WHEN 'questions'               THEN CAST(p.questions AS DOUBLE)
        WHEN 'best_correct'            THEN CAST(p.best_correct AS DOUBLE)
        WHEN 'recall_at_k'             THEN p.recall_at_k
        WHEN 'action_accuracy'         THEN p.action_accuracy
        WHEN 'mean_em'                 THEN p.mean_em
        WHEN 'mean_f1'                 THEN p.mean_f1
        WHEN 'held_for_review'         THEN CAST(p.held AS DOUBLE)
        WHEN 'retrieval_accuracy'      THEN p.retrieval
        WHEN 'citation_accuracy'       THEN p.citation
        WHEN 'refusal_accuracy'        THEN p.refusal
        WHEN 'refusals_wrong'          THEN CAST(p.wrongly AS DOUBLE)
        WHEN 'refusals_missed'         THEN CAST(p.missed AS DOUBLE)
        WHEN 'judge_disagreement_rate' THEN p.rate
    END AS value
FROM per_run AS p
CROSS JOIN metric_names AS n
