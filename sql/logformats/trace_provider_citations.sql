-- A trace format's provider citations: those a provider returned in an LLM span's output, when its output.value is
-- a Messages-API-style JSON response ({"content": [{"type": "text", "citations": [...]}]}).
-- document_index (or search_result_index) n names the trace's retrieved document at rank n + 1;
-- cited_text is the quote.
WITH llm AS (
    SELECT file, line, trace_id AS request_id,
           CASE WHEN json_valid(output_value) AND starts_with(ltrim(output_value), '{')
                THEN json_transform(output_value, '{"content": ["JSON"]}').content END AS blocks
    FROM trace_fields
    WHERE kind = 'LLM'
),
numbered_blocks AS (
    SELECT file, line, request_id,
           unnest(list_transform(range(1, array_length(blocks) + 1),
                                 lambda i: struct_pack(block := blocks[i], i := i))) AS b
    FROM llm
),
block_cites AS (
    SELECT file, line, request_id, b.i AS block_no,
           json_transform_strict(json_extract(b.block, '$.citations'), '["JSON"]') AS block_citations
    FROM numbered_blocks
),
numbered_cites AS (
    SELECT file, line, request_id, block_no,
           unnest(list_transform(range(1, array_length(block_citations) + 1),
                                 lambda i: struct_pack(cite := block_citations[i], i := i))) AS c
    FROM block_cites
),
cites AS (
    SELECT file, line, request_id,
           CAST(row_number() OVER (PARTITION BY request_id ORDER BY block_no, c.i) AS INTEGER) AS position,
           c.cite
    FROM numbered_cites
)
SELECT
    c.file,
    c.line,
    c.request_id,
    c.position,
    d.chunk_id,
    json_extract_string(c.cite, '$.cited_text')                  AS quote,
    CASE WHEN d.chunk_id IS NOT NULL THEN 'resolved'
         WHEN d.request_id IS NOT NULL THEN 'unresolved'
         ELSE 'out_of_range' END                                 AS resolution,
    CASE WHEN starts_with(c.cite, '{') THEN c.cite END           AS location
FROM cites AS c
LEFT JOIN norm_retrievals AS d
    ON d.request_id = c.request_id
   AND d.rank = TRY_CAST(coalesce(json_extract_string(c.cite, '$.document_index'),
                                  json_extract_string(c.cite, '$.search_result_index')) AS INTEGER) + 1
