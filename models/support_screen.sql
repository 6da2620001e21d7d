-- One row per response: six mechanical checks of whether the answer is backed by what it cites.
--   parsed               the output parsed (reader_outputs.parse_ok)
--   cited_exist          every cited id is a chunk of the run
--   cited_retrieved      every cited id was retrieved for the question
--   answer_has_citation  an answer cites at least one id (true for other actions)
--   refusal_sources_ok   a refusal cites none (true for other actions)
--   numbers_supported    every number of the answer (digit runs not after a letter or digit,
--                        cited ids removed first) is among the numbers of the cited chunks
--   failed_checks        the names of the checks that failed, in this order
--   held_for_review      some check failed: a person should read it
WITH cited AS (
    SELECT run_id, question_id, unnest(sources) AS chunk_id
    FROM responses
),
retrieved AS (
    SELECT DISTINCT run_id, question_id, chunk_id FROM retrievals
),
cited_counts AS (
    SELECT
        ci.run_id,
        ci.question_id,
        count(*) FILTER (WHERE c.chunk_id IS NULL)   AS missing,
        count(*) FILTER (WHERE rt.chunk_id IS NULL)  AS not_retrieved
    FROM cited AS ci
    LEFT JOIN chunks AS c ON c.run_id = ci.run_id AND c.chunk_id = ci.chunk_id
    LEFT JOIN retrieved AS rt
        ON rt.run_id = ci.run_id AND rt.question_id = ci.question_id AND rt.chunk_id = ci.chunk_id
    GROUP BY ci.run_id, ci.question_id
),
answer_numbers AS (
    SELECT run_id, question_id, unnest(answer_numbers) AS number
    FROM responses
),
supported_numbers AS (
    -- numbers of an answer found among the numbers of a chunk it cites
    SELECT DISTINCT a.run_id, a.question_id, a.number
    FROM answer_numbers AS a
    JOIN cited AS ci ON ci.run_id = a.run_id AND ci.question_id = a.question_id
    JOIN chunks AS c ON c.run_id = ci.run_id AND c.chunk_id = ci.chunk_id
    WHERE list_contains(c.text_numbers, a.number)
),
unsupported_numbers AS (
    SELECT a.run_id, a.question_id, count(*) AS n
    FROM answer_numbers AS a
    LEFT JOIN supported_numbers AS s
        ON s.run_id = a.run_id AND s.question_id = a.question_id AND s.number = a.number
    WHERE s.number IS NULL
    GROUP BY a.run_id, a.question_id
),
checks AS (
    SELECT
        o.run_id,
        o.question_id,
        o.parse_ok                                                 AS parsed,
        COALESCE(cc.missing, 0) = 0                                AS cited_exist,
        COALESCE(cc.not_retrieved, 0) = 0                          AS cited_retrieved,
        o.action <> 'answer' OR array_length(o.sources) >= 1       AS answer_has_citation,
        o.action <> 'refuse' OR array_length(o.sources) = 0        AS refusal_sources_ok,
        COALESCE(un.n, 0) = 0                                      AS numbers_supported
    FROM reader_outputs AS o
    LEFT JOIN cited_counts AS cc ON cc.run_id = o.run_id AND cc.question_id = o.question_id
    LEFT JOIN unsupported_numbers AS un ON un.run_id = o.run_id AND un.question_id = o.question_id
)
SELECT
    *,
    (CASE WHEN parsed THEN [] ELSE ['parsed'] END)
        || (CASE WHEN cited_exist THEN [] ELSE ['cited_exist'] END)
        || (CASE WHEN cited_retrieved THEN [] ELSE ['cited_retrieved'] END)
        || (CASE WHEN answer_has_citation THEN [] ELSE ['answer_has_citation'] END)
        || (CASE WHEN refusal_sources_ok THEN [] ELSE ['refusal_sources_ok'] END)
        || (CASE WHEN numbers_supported THEN [] ELSE ['numbers_supported'] END)   AS failed_checks,
    NOT (parsed AND cited_exist AND cited_retrieved AND answer_has_citation
         AND refusal_sources_ok AND numbers_supported)                            AS held_for_review
FROM checks
