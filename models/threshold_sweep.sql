-- One row per (run, threshold): the refusal rule "answer when the best score is at
-- least the threshold, otherwise refuse", scored against each question's expected behaviour.
--   correct             decisions that match expected, out of questions
--   wrongly_refused     expected answer (or flag_premise: the reader must see the passage
--                       to correct the premise), refused (ids in question order)
--   wrongly_answered    expected refuse, answered (ids in question order)
SELECT
    t.run_id,
    t.threshold,
    count(*)                                                        AS questions,
    count(*) FILTER (WHERE (q.best_score >= t.threshold) = (q.expected <> 'refuse'))
                                                                    AS correct,
    count(*) FILTER (WHERE q.expected <> 'refuse' AND q.best_score < t.threshold)
                                                                    AS wrongly_refused_count,
    count(*) FILTER (WHERE q.expected = 'refuse' AND q.best_score >= t.threshold)
                                                                    AS wrongly_answered_count,
    COALESCE(
        list_transform(list_sort(array_agg(struct_pack(o := q.ordinal, id := q.question_id))
            FILTER (WHERE q.expected <> 'refuse' AND q.best_score < t.threshold)), lambda x: x.id),
        CAST([] AS VARCHAR[]))                                      AS wrongly_refused,
    COALESCE(
        list_transform(list_sort(array_agg(struct_pack(o := q.ordinal, id := q.question_id))
            FILTER (WHERE q.expected = 'refuse' AND q.best_score >= t.threshold)), lambda x: x.id),
        CAST([] AS VARCHAR[]))                                      AS wrongly_answered
FROM run_thresholds AS t
JOIN question_best_score AS q
    ON q.run_id = t.run_id
GROUP BY t.run_id, t.threshold
