-- One row per question with a response: retrieval, citation and refusal scored apart.
--   expected_chunk  the question's gold_chunk_id, else the chunk `cases` finds for it (NULL for none)
--   retrieval_ok    the expected chunk is among the retrieved ids; with no expected chunk,
--                   nothing was retrieved
--   citation_ok     the cited ids are exactly the first retrieved id (or both are empty)
--   refusal_ok      the response refused exactly when the question expects a refusal
--   retrieval, citation, refusal: the same as labels hit/MISS, ok/BAD, ok/WRONG
WITH scored_questions AS (
    -- only the questions with a response are scored: restricted first, so that the gold search
    -- below reads no other question (a run without responses searches nothing)
    SELECT q.run_id, q.question_id, q.ordinal, q.expected, q.gold_chunk_id, q.gold_norm
    FROM questions AS q
    WHERE EXISTS (SELECT 1 FROM reader_outputs AS o WHERE o.run_id = q.run_id AND o.question_id = q.question_id)
),
gold_found AS (
    -- the rule of `cases`, for these questions without a gold chunk id: the first chunk in file
    -- order whose norm(text) contains norm(gold) (tests/test_axes.py: the same chunk as cases)
    SELECT q.run_id, q.question_id, min(c.ordinal) AS chunk_ordinal
    FROM scored_questions AS q
    JOIN chunks AS c
        ON c.run_id = q.run_id AND strpos(c.text_norm, q.gold_norm) > 0
    WHERE q.expected <> 'refuse' AND q.gold_chunk_id IS NULL AND q.gold_norm <> ''
    GROUP BY q.run_id, q.question_id
    UNION ALL
    -- an empty gold is inside every chunk text: the run's first chunk, found without searching them
    SELECT q.run_id, q.question_id, f.chunk_ordinal
    FROM scored_questions AS q
    JOIN (SELECT run_id, min(ordinal) AS chunk_ordinal FROM chunks GROUP BY run_id) AS f
        ON f.run_id = q.run_id
    WHERE q.expected <> 'refuse' AND q.gold_chunk_id IS NULL AND q.gold_norm = ''
),
expected AS (
    SELECT
        q.run_id,
        q.question_id,
        q.ordinal,
        q.expected,
        COALESCE(q.gold_chunk_id, nullif(c.chunk_id, 'none')) AS expected_chunk
    FROM scored_questions AS q
    LEFT JOIN gold_found AS g ON g.run_id = q.run_id AND g.question_id = q.question_id
    LEFT JOIN chunks AS c ON c.run_id = g.run_id AND c.ordinal = g.chunk_ordinal
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
