-- Anthropic: the documents and search results the request showed the model, in order.
SELECT
    file,
    line,
    request_id,
    shown_rank                                                   AS rank,
    chunk_id,
    CAST(NULL AS DOUBLE)                                         AS score,
    content,
    CASE WHEN chunk_id IS NULL THEN 'none' ELSE 'metadata' END  AS id_source
FROM anthropic_spans
