-- Anthropic: one row per citation in the response's text blocks, in order. char_location,
-- page_location and content_block_location name a document by document_index,
-- search_result_location a search result by search_result_index; both count across the whole
-- request (anthropic_spans.kind_index): resolved, ambiguous (two passages share that id),
-- unresolved (the passage has no id) or out_of_range (no such passage). A
-- web_search_result_location names no passage of the request: its URL is the chunk id. cited_text
-- is the quote; location keeps the citation as the API gave it (its type and indexes).
WITH numbered_blocks AS (
    -- each block with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, request_id,
           unnest(list_transform(range(1, array_length(content) + 1),
                                 lambda i: struct_pack(block := content[i], i := i))) AS b
    FROM anthropic_exchanges
),
block_cites AS (
    SELECT file, line, request_id, b.i AS block_no,
           json_transform(b.block, '{"citations": ["JSON"]}').citations AS block_citations
    FROM numbered_blocks
),
numbered_cites AS (
    SELECT file, line, request_id, block_no,
           unnest(list_transform(range(1, array_length(block_citations) + 1),
                                 lambda i: struct_pack(cite := block_citations[i], i := i))) AS c
    FROM block_cites
),
targets AS (
    SELECT
        file, line, request_id,
        CAST(row_number() OVER (PARTITION BY request_id ORDER BY block_no, c.i) AS INTEGER) AS position,
        c.cite,
        json_extract_string(c.cite, '$.type')                                             AS cite_type,
        CASE WHEN json_extract_string(c.cite, '$.type') = 'search_result_location' THEN 'search_result'
             ELSE 'document' END                                                          AS kind,
        TRY_CAST(coalesce(json_extract_string(c.cite, '$.document_index'),
                          json_extract_string(c.cite, '$.search_result_index')) AS INTEGER) AS target_index
    FROM numbered_cites
),
id_counts AS (
    SELECT request_id, chunk_id, count(*) AS n FROM anthropic_spans GROUP BY request_id, chunk_id
)
SELECT
    t.file,
    t.line,
    t.request_id,
    t.position,
    CASE WHEN t.cite_type = 'web_search_result_location' THEN json_extract_string(t.cite, '$.url')
         ELSE s.chunk_id END                                                              AS chunk_id,
    json_extract_string(t.cite, '$.cited_text')                                           AS quote,
    CASE
        WHEN t.cite_type = 'web_search_result_location' THEN 'resolved'
        WHEN s.request_id IS NULL THEN 'out_of_range'
        WHEN s.chunk_id IS NULL THEN 'unresolved'
        WHEN ic.n > 1 THEN 'ambiguous'
        ELSE 'resolved'
    END                                                                                   AS resolution,
    CASE WHEN starts_with(t.cite, '{') THEN t.cite END                                    AS location
FROM targets AS t
LEFT JOIN anthropic_spans AS s
    ON s.request_id = t.request_id AND s.kind = t.kind AND s.kind_index = t.target_index
LEFT JOIN id_counts AS ic
    ON ic.request_id = t.request_id AND ic.chunk_id = s.chunk_id
