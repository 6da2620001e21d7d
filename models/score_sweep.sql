-- One row per (run, score threshold): the refusal rule "answer when the best retrieval score is
-- at least the threshold, otherwise refuse", over the scores the run's own retriever gave
-- (retrievals.score), in the shape of threshold_sweep (which sweeps the chapter's word-overlap
-- count instead). The thresholds are runs.params.score_thresholds (load --score-thresholds);
-- a run without them has no rows.
--   best_score          per question, the largest non-NULL retrievals.score; a question with
--                       no scored retrieval has none and is refused at every threshold
--   correct             decisions that match expected, out of questions
--   wrongly_refused     expected answer (or flag_premise), refused (ids in question order)
--   wrongly_answered    expected refuse, answered (ids in question order)
WITH thresholds AS (
    SELECT run_id, unnest(CAST(json_extract(params, '$.score_thresholds') AS DOUBLE[])) AS threshold
    FROM runs
),
best AS (
    SELECT
        q.run_id,
        q.question_id,
        q.ordinal,
        q.expected,
        (SELECT max(r.score) FROM retrievals AS r
         WHERE r.run_id = q.run_id AND r.question_id = q.question_id) AS best_score
    FROM questions AS q
),
decided AS (
    SELECT t.run_id, t.threshold, b.question_id, b.ordinal, b.expected,
           COALESCE(b.best_score >= t.threshold, FALSE) AS answers
    FROM thresholds AS t
    JOIN best AS b ON b.run_id = t.run_id
)
SELECT
    run_id,
    threshold,
    count(*)                                                            AS questions,
    count(*) FILTER (WHERE answers = (expected <> 'refuse'))            AS correct,
    count(*) FILTER (WHERE expected <> 'refuse' AND NOT answers)        AS wrongly_refused_count,
    count(*) FILTER (WHERE expected = 'refuse' AND answers)             AS wrongly_answered_count,
    COALESCE(
        list_transform(list_sort(array_agg(struct_pack(o := ordinal, id := question_id))
            FILTER (WHERE expected <> 'refuse' AND NOT answers)), lambda x: x.id),
        CAST([] AS VARCHAR[]))                                          AS wrongly_refused,
    COALESCE(
        list_transform(list_sort(array_agg(struct_pack(o := ordinal, id := question_id))
            FILTER (WHERE expected = 'refuse' AND answers)), lambda x: x.id),
        CAST([] AS VARCHAR[]))                                          AS wrongly_answered
FROM decided
GROUP BY run_id, threshold
