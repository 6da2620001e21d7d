-- One row per question with a response: retrieval, citation and refusal scored apart.
--   expected_chunk  the question's gold_chunk_id, else the first chunk holding its gold text
--                   (gold_matches, as `cases` finds it; NULL for none)
--   retrieval_ok    the expected chunk is among the retrieved ids; with no expected chunk,
--                   nothing was retrieved
--   citation_ok     the cited ids are exactly the first retrieved id (or both are empty)
--   refusal_ok      the response refused exactly when the question expects a refusal
--   retrieval, citation, refusal: the same as labels hit/MISS, ok/BAD, ok/WRONG
WITH expected AS (
    -- only the questions with a response are scored
    SELECT
        q.run_id,
        q.question_id,
        q.ordinal,
        q.expected,
        COALESCE(q.gold_chunk_id, c.chunk_id) AS expected_chunk
    FROM questions AS q
    LEFT JOIN gold_matches AS g ON g.run_id = q.run_id AND g.question_id = q.question_id
    LEFT JOIN chunks AS c ON c.run_id = g.run_id AND c.ordinal = g.chunk_ordinal
    WHERE EXISTS (SELECT 1 FROM reader_outputs AS o WHERE o.run_id = q.run_id AND o.question_id = q.question_id)
),
retrieved AS (
    SELECT run_id, question_id,
           list_transform(list_sort(array_agg(struct_pack(r := rank, id := chunk_id))), lambda x: x.id) AS ids
    FROM retrievals
    GROUP BY run_id, question_id
),
scored AS (
    SELECT
        e.run_id,
        e.question_id,
        e.ordinal,
        e.expected_chunk,
        COALESCE(r.ids, CAST([] AS VARCHAR[]))              AS retrieved_ids,
        o.sources                                           AS cited_ids,
        o.action = 'refuse'                                 AS refused,
        CASE
            WHEN e.expected_chunk IS NOT NULL THEN COALESCE(list_contains(r.ids, e.expected_chunk), FALSE)
            ELSE COALESCE(array_length(r.ids), 0) = 0
        END                                                 AS retrieval_ok,
        o.sources = COALESCE(array_slice(r.ids, 1, 1), CAST([] AS VARCHAR[])) AS citation_ok,
        (o.action = 'refuse') = (e.expected = 'refuse')     AS refusal_ok
    FROM expected AS e
    JOIN reader_outputs AS o ON o.run_id = e.run_id AND o.question_id = e.question_id
    LEFT JOIN retrieved AS r ON r.run_id = e.run_id AND r.question_id = e.question_id
)
SELECT
    *,
    CASE WHEN retrieval_ok THEN 'hit' ELSE 'MISS' END  AS retrieval,
    CASE WHEN citation_ok THEN 'ok' ELSE 'BAD' END     AS citation,
    CASE WHEN refusal_ok THEN 'ok' ELSE 'WRONG' END    AS refusal
FROM scored
