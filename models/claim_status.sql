-- One row per claim: its status by the claim-status rule, the first that applies:
--   UNCITED          the claim cites no chunk
--   DANGLING         at least one cited id is not a chunk of the run
--   UNSUPPORTED      norm(quote) is inside norm(text) of no cited chunk
--   NUMBER_MISMATCH  a digit run of the claim text is not among the digit runs of the quote
--   SUPPORTED        none of the above
-- cited_ids lists the cited chunk ids in the claim's order; pairs and sound_pairs count them.
WITH pair_counts AS (
    SELECT
        run_id,
        claim_id,
        count(*)                                    AS pairs,
        count(*) FILTER (WHERE NOT chunk_exists)    AS dangling_pairs,
        count(*) FILTER (WHERE quote_found)         AS sound_pairs,
        list_transform(list_sort(array_agg(struct_pack(o := ordinal, id := chunk_id))), lambda c: c.id)
                                                    AS cited_ids
    FROM citation_pairs
    GROUP BY run_id, claim_id
)
SELECT
    cl.run_id,
    cl.claim_id,
    cl.ordinal,
    cl.question_id,
    CASE
        WHEN p.pairs IS NULL                               THEN 'UNCITED'
        WHEN p.dangling_pairs > 0                          THEN 'DANGLING'
        WHEN p.sound_pairs = 0                             THEN 'UNSUPPORTED'
        WHEN array_length(list_filter(cl.text_digits, lambda d: NOT list_contains(cl.quote_digits, d))) > 0
                                                           THEN 'NUMBER_MISMATCH'
        ELSE 'SUPPORTED'
    END                                                    AS status,
    COALESCE(p.cited_ids, CAST([] AS VARCHAR[]))           AS cited_ids,
    COALESCE(p.pairs, 0)                                   AS pairs,
    COALESCE(p.sound_pairs, 0)                             AS sound_pairs
FROM claims AS cl
LEFT JOIN pair_counts AS p
    ON p.run_id = cl.run_id AND p.claim_id = cl.claim_id
