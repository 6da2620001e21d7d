-- One row per (run, judge): a judge's grades against the hand grades (grader 'human').
--   items              items graded by both the judge and a human
--   disagreements      of those, items whose labels differ
--   disagreement_rate  disagreements / items (NULL when they share no item)
--   disagreed_items    the item ids they disagree on, sorted
WITH human AS (
    SELECT run_id, item_id, label FROM grades WHERE grader = 'human'
),
judged AS (
    SELECT g.run_id, g.grader AS judge, g.item_id, g.label AS judge_label, h.label AS human_label
    FROM grades AS g
    LEFT JOIN human AS h ON h.run_id = g.run_id AND h.item_id = g.item_id
    WHERE g.grader <> 'human'
)
SELECT
    run_id,
    judge,
    count(human_label)                                                     AS items,
    count(*) FILTER (WHERE human_label IS NOT NULL AND judge_label <> human_label) AS disagreements,
    count(*) FILTER (WHERE human_label IS NOT NULL AND judge_label <> human_label)
        / NULLIF(count(human_label), 0)                                    AS disagreement_rate,
    COALESCE(list_sort(array_agg(item_id)
                 FILTER (WHERE human_label IS NOT NULL AND judge_label <> human_label)),
             CAST([] AS VARCHAR[]))                                         AS disagreed_items
FROM judged
GROUP BY run_id, judge
