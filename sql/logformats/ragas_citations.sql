-- RAGAS samples carry no citations.
SELECT
    file, line, NULL::VARCHAR AS request_id, NULL::INTEGER AS position, NULL::VARCHAR AS chunk_id,
    NULL::VARCHAR AS quote, NULL::VARCHAR AS resolution
FROM log_raw
WHERE FALSE
