-- OpenInference: citations a provider returned in the LLM span's output, when output.value is
-- a Messages-API-style JSON response ({"content": [{"type": "text", "citations": [...]}]}).
-- document_index (or search_result_index) n names the trace's retrieved document at rank n + 1;
-- cited_text is the quote.
WITH llm AS (
    SELECT file, line, trace_id AS request_id, output_value AS output
    FROM openinference_spans
    WHERE kind = 'LLM'
),
cites AS (
    SELECT
        l.file, l.line, l.request_id,
        CAST(row_number() OVER (PARTITION BY l.request_id ORDER BY b.i, c.i) AS INTEGER) AS position,
        c.cite
    FROM llm AS l,
         unnest(CAST(CASE WHEN json_valid(l.output) AND json_type(l.output::JSON -> 'content') = 'ARRAY'
                          THEN l.output::JSON -> 'content' ELSE '[]' END AS JSON[])) WITH ORDINALITY AS b(block, i),
         unnest(CAST(coalesce(b.block -> 'citations', '[]') AS JSON[])) WITH ORDINALITY AS c(cite, i)
)
SELECT
    c.file,
    c.line,
    c.request_id,
    c.position,
    d.chunk_id,
    c.cite ->> 'cited_text'                                      AS quote,
    CASE WHEN d.chunk_id IS NOT NULL THEN 'resolved'
         WHEN d.request_id IS NOT NULL THEN 'unresolved'
         ELSE 'out_of_range' END                                 AS resolution
FROM cites AS c
LEFT JOIN norm_retrievals AS d
    ON d.request_id = c.request_id
   AND d.rank = TRY_CAST(coalesce(c.cite ->> 'document_index', c.cite ->> 'search_result_index') AS INTEGER) + 1
