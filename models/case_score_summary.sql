-- One row per run with responses: the three axes counted over its cases, as numbers and
-- as the note's "k/n" strings.
SELECT
    run_id,
    count(*)                                              AS cases,
    count(*) FILTER (WHERE retrieval_ok)                  AS retrieval_ok,
    count(*) FILTER (WHERE citation_ok)                   AS citation_ok,
    count(*) FILTER (WHERE refusal_ok)                    AS refusal_ok,
    count(*) FILTER (WHERE retrieval_ok) || '/' || count(*) AS retrieval,
    count(*) FILTER (WHERE citation_ok) || '/' || count(*)  AS citation,
    count(*) FILTER (WHERE refusal_ok) || '/' || count(*)   AS refusal
FROM case_scores
GROUP BY run_id
