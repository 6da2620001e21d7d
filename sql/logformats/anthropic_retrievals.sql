-- Anthropic: the documents and search results the request showed the model (anthropic_spans),
-- in the order it showed them, with their titles and contexts as metadata.
SELECT
    file,
    line,
    request_id,
    shown_rank                                                   AS rank,
    chunk_id,
    CAST(NULL AS DOUBLE)                                         AS score,
    content,
    CASE WHEN chunk_id IS NULL THEN 'none' ELSE 'id' END         AS id_source,
    metadata
FROM anthropic_spans
