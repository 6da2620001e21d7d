-- One row per (claim, cited id): a citation pair.
--   chunk_exists  the cited id is a chunk of the run
--   quote_found   the chunk exists and norm(quote) appears inside norm(chunk text):
--                 the pair is sound (an empty quote is inside every chunk text)
SELECT
    ci.run_id,
    ci.claim_id,
    ci.ordinal,
    ci.chunk_id,
    ch.chunk_id IS NOT NULL AS chunk_exists,
    COALESCE(strpos(ch.text_norm, cl.quote_norm) > 0, FALSE) AS quote_found
FROM citations AS ci
JOIN claims AS cl
    ON cl.run_id = ci.run_id AND cl.claim_id = ci.claim_id
LEFT JOIN chunks AS ch
    ON ch.run_id = ci.run_id AND ch.chunk_id = ci.chunk_id
