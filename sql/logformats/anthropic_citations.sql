-- Anthropic: one row per citation in the response's text blocks, in order. char_location and
-- content_block_location name a document by document_index, search_result_location a search
-- result by search_result_index (or its source); the index is resolved against the request's
-- blocks: resolved, ambiguous (two passages share that id), unresolved (the passage has no
-- id) or out_of_range (no such passage). cited_text is kept as the quote.
WITH exchanges AS (
    SELECT file, line, record, coalesce(record ->> 'request_id', record -> 'response' ->> 'id') AS request_id
    FROM log_raw
),
cites AS (
    SELECT
        e.file, e.line, e.request_id,
        CAST(row_number() OVER (PARTITION BY e.request_id ORDER BY b.i, c.i) AS INTEGER) AS position,
        c.cite
    FROM exchanges AS e,
         unnest(CAST(coalesce(e.record -> 'response' -> 'content', '[]') AS JSON[])) WITH ORDINALITY AS b(block, i),
         unnest(CAST(coalesce(b.block -> 'citations', '[]') AS JSON[])) WITH ORDINALITY AS c(cite, i)
),
targets AS (
    SELECT
        c.*,
        CASE WHEN c.cite ->> 'type' = 'search_result_location' THEN 'search_result' ELSE 'document' END AS kind,
        TRY_CAST(coalesce(c.cite ->> 'document_index', c.cite ->> 'search_result_index') AS INTEGER)   AS target_index
    FROM cites AS c
),
id_counts AS (
    SELECT request_id, chunk_id, count(*) AS n FROM anthropic_spans GROUP BY request_id, chunk_id
)
SELECT
    t.file,
    t.line,
    t.request_id,
    t.position,
    coalesce(s.chunk_id, CASE WHEN t.kind = 'search_result' THEN t.cite ->> 'source' END) AS chunk_id,
    t.cite ->> 'cited_text'                                                               AS quote,
    CASE
        WHEN s.request_id IS NULL AND t.kind = 'search_result' AND t.cite ->> 'source' IS NOT NULL THEN 'resolved'
        WHEN s.request_id IS NULL THEN 'out_of_range'
        WHEN s.chunk_id IS NULL THEN 'unresolved'
        WHEN ic.n > 1 THEN 'ambiguous'
        ELSE 'resolved'
    END                                                                                   AS resolution
FROM targets AS t
LEFT JOIN anthropic_spans AS s
    ON s.request_id = t.request_id AND s.kind = t.kind AND s.kind_index = t.target_index
LEFT JOIN id_counts AS ic
    ON ic.request_id = t.request_id AND ic.chunk_id = s.chunk_id
