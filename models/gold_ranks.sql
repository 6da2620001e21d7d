-- One row per question of a run: the retrieve-then-read lesson's gold_ranks, the gold chunk's
-- place in the built-in retriever's full ranking of the run's chunks (score descending, then
-- chunk id), below the top k too. retrieval_eval's gold_rank and recall_at_k stay the top k's.
--   gold_rank   1 + the chunks scored above the gold chunk, or as high with a smaller id; NULL
--               when the gold chunk scores 0 (the lesson ranks scores above 0 only) or there is none
--   gold_score  the gold chunk's score (retriever_scores'), 0 when it shares nothing
--   label       'rank N' | 'not retrieved (all scores 0)' | 'not applicable' (no gold chunk)
WITH gold AS (
    SELECT q.run_id, q.question_id, q.ordinal, q.gold_chunk_id, sc.score
    FROM questions AS q
    LEFT JOIN retriever_scores AS sc
        ON sc.run_id = q.run_id AND sc.question_id = q.question_id AND sc.chunk_id = q.gold_chunk_id
),
ahead AS (
    SELECT g.run_id, g.question_id, count(*) AS chunks
    FROM gold AS g
    JOIN retriever_scores AS sc ON sc.run_id = g.run_id AND sc.question_id = g.question_id
    WHERE sc.score > g.score OR (sc.score = g.score AND sc.chunk_id < g.gold_chunk_id)
    GROUP BY g.run_id, g.question_id
)
SELECT
    g.run_id,
    g.question_id,
    g.ordinal,
    g.gold_chunk_id,
    CASE WHEN g.score > 0 THEN 1 + COALESCE(a.chunks, 0) END AS gold_rank,
    COALESCE(g.score, 0)                                     AS gold_score,
    CASE
        WHEN g.gold_chunk_id IS NULL THEN 'not applicable'
        WHEN COALESCE(g.score, 0) = 0 THEN 'not retrieved (all scores 0)'
        ELSE 'rank ' || (1 + COALESCE(a.chunks, 0))
    END                                                      AS label
FROM gold AS g
LEFT JOIN ahead AS a ON a.run_id = g.run_id AND a.question_id = g.question_id
