-- One row per run: claim counts per status and the two citation measures.
--   supported_share  SUPPORTED claims / claims: citation recall (Liu et al.); NULL without claims
--   pair_precision   sound pairs / pairs: citation precision (Liu et al.); NULL without pairs
SELECT
    r.run_id,
    count(cs.claim_id)                                          AS claims,
    count(*) FILTER (WHERE cs.status = 'UNCITED')               AS uncited,
    count(*) FILTER (WHERE cs.status = 'DANGLING')              AS dangling,
    count(*) FILTER (WHERE cs.status = 'UNSUPPORTED')           AS unsupported,
    count(*) FILTER (WHERE cs.status = 'NUMBER_MISMATCH')       AS number_mismatch,
    count(*) FILTER (WHERE cs.status = 'SUPPORTED')             AS supported,
    count(*) FILTER (WHERE cs.status = 'SUPPORTED')
        / NULLIF(count(cs.claim_id), 0)                         AS supported_share,
    CAST(COALESCE(sum(cs.pairs), 0) AS BIGINT)                  AS pairs,
    CAST(COALESCE(sum(cs.sound_pairs), 0) AS BIGINT)            AS sound_pairs,
    sum(cs.sound_pairs) / NULLIF(sum(cs.pairs), 0)              AS pair_precision
FROM runs AS r
LEFT JOIN claim_status AS cs
    ON cs.run_id = r.run_id
GROUP BY r.run_id
