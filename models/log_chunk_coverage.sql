-- One row per (run, chunk id production retrieved or cited).
--   retrieved_count, cited_count  how often production retrieved it and cited it
--   covered_by_case               a test question of the run has it as gold chunk or case chunk
--   chunk_exists                  it is a chunk of the run
WITH used AS (
    SELECT chunk_id, sum(retrieved) AS retrieved_count, sum(cited) AS cited_count
    FROM (
        SELECT chunk_id, 1 AS retrieved, 0 AS cited FROM log_retrievals WHERE chunk_id IS NOT NULL
        UNION ALL
        SELECT chunk_id, 0 AS retrieved, 1 AS cited FROM log_citations WHERE chunk_id IS NOT NULL
    ) AS u
    GROUP BY chunk_id
),
gold AS (
    SELECT run_id, gold_chunk_id AS chunk_id FROM questions WHERE gold_chunk_id IS NOT NULL
    UNION
    SELECT run_id, chunk_id FROM cases WHERE chunk_id <> 'none'
)
SELECT
    r.run_id,
    u.chunk_id,
    CAST(u.retrieved_count AS BIGINT)                    AS retrieved_count,
    CAST(u.cited_count AS BIGINT)                        AS cited_count,
    EXISTS (SELECT 1 FROM gold AS g WHERE g.run_id = r.run_id AND g.chunk_id = u.chunk_id) AS covered_by_case,
    EXISTS (SELECT 1 FROM chunks AS c WHERE c.run_id = r.run_id AND c.chunk_id = u.chunk_id) AS chunk_exists
FROM runs AS r
CROSS JOIN used AS u
