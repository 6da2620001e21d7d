-- DeepEval: one row per retrieval_context item of a case (deepeval_cases), rank = position. DeepEval
-- has no field for a passage's id: the chunk id is the item at the same position of the case
-- metadata's retrieval_context_ids list, where it has one.
WITH positioned AS (
    -- each context with its 1-based position, as one struct: one unnest, which Spark also allows
    SELECT file, line, request_id,
           json_transform(metadata, '{"retrieval_context_ids": ["VARCHAR"]}').retrieval_context_ids AS ids,
           unnest(list_transform(range(1, array_length(retrieval_context) + 1),
                                 lambda i: struct_pack(i := i, content := retrieval_context[i]))) AS c
    FROM (SELECT *, row_number() OVER (PARTITION BY file, line, request_id ORDER BY case_no) AS copy
          FROM deepeval_cases) AS d
    WHERE copy = 1
)
SELECT
    file,
    line,
    request_id,
    CAST(c.i AS INTEGER)                                  AS rank,
    ids[c.i]                                              AS chunk_id,
    CAST(NULL AS DOUBLE)                                  AS score,
    c.content                                             AS content,
    CASE WHEN ids[c.i] IS NULL THEN 'none' ELSE 'metadata' END AS id_source,
    CAST(NULL AS JSON)                                    AS metadata
FROM positioned
