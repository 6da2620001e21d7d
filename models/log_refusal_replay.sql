-- One row per (run, threshold): the run's refusal rule replayed on production questions.
--   requests               production requests
--   would_refuse           requests whose best score over the run's chunks is below the threshold
--   refused_in_production  requests production actually refused; NULL when no log records refusals
SELECT
    t.run_id,
    t.threshold,
    count(s.request_id)                                   AS requests,
    count(*) FILTER (WHERE s.best_score < t.threshold)    AS would_refuse,
    CASE WHEN count(s.refused) > 0 THEN count(*) FILTER (WHERE s.refused) END AS refused_in_production
FROM run_thresholds AS t
JOIN log_request_scores AS s ON s.run_id = t.run_id
GROUP BY t.run_id, t.threshold
