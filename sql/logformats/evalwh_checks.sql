-- evalwh JSONL: one row per record that is no evalwh record (it has none of request_id, question,
-- answer, retrieved and cited), or whose fields have the wrong JSON type (file, line, error).
-- Text fields are strings (or null), refused is true/false, retrieved and cited are lists of
-- objects whose chunk_id and quote are strings and whose score is a finite number (or null).
-- Without this a number id, a string score or a retrieved string would load as something else.
-- Each record is parsed once, into its fields as JSON fragments; only the two lists are parsed
-- again, for their elements' types and fields. A fragment is minified JSON text (a JSON null is
-- SQL NULL here), so its first character tells its type: '"' a string, 't' or 'f' a boolean,
-- '[' a list, '{' an object, '-' or a digit a number, 'n' (or NULL) null.
WITH fields AS (
    SELECT
        file,
        line,
        json_transform(record, '{
            "request_id": "JSON", "session_id": "JSON", "ts": "JSON", "question": "JSON", "answer": "JSON",
            "model": "JSON", "finish_reason": "JSON", "refused": "JSON", "retrieved": "JSON", "cited": "JSON"
        }') AS f
    FROM log_raw
),
parsed AS (
    SELECT
        file,
        line,
        list_transform([f.request_id, f.session_id, f.ts, f.question, f.answer, f.model, f.finish_reason,
                        f.refused, f.retrieved, f.cited], lambda v: coalesce(left(v, 1), 'n')) AS types,
        json_type(f.retrieved, '$[*]')                                                  AS doc_types,
        json_type(f.cited, '$[*]')                                                      AS cite_types,
        json_transform(f.retrieved, '[{"chunk_id": "JSON", "score": "JSON", "content": "JSON"}]') AS docs,
        json_transform(f.cited, '[{"chunk_id": "JSON", "quote": "JSON"}]')               AS cites
    FROM fields
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN list_bool_and(list_transform([types[1], types[4], types[5], types[9], types[10]], lambda t: t = 'n'))
                THEN 'not an evalwh log record: it has none of request_id, question, answer, retrieved and cited'
            WHEN types[1] NOT IN ('"', 'n') THEN 'request_id must be a string'
            WHEN types[2] NOT IN ('"', 'n') THEN 'session_id must be a string'
            WHEN types[3] NOT IN ('"', 'n') THEN 'ts must be an ISO 8601 string'
            WHEN types[4] NOT IN ('"', 'n') THEN 'question must be a string'
            WHEN types[5] NOT IN ('"', 'n') THEN 'answer must be a string'
            WHEN types[6] NOT IN ('"', 'n') THEN 'model must be a string'
            WHEN types[7] NOT IN ('"', 'n') THEN 'finish_reason must be a string'
            WHEN types[8] NOT IN ('t', 'f', '"', 'n') THEN 'refused must be true or false'
            WHEN types[9] NOT IN ('[', 'n') THEN 'retrieved must be a list of objects'
            WHEN types[10] NOT IN ('[', 'n') THEN 'cited must be a list of objects'
            WHEN list_bool_or(list_transform(doc_types, lambda t: t <> 'OBJECT')) THEN 'retrieved must be a list of objects'
            WHEN list_bool_or(list_transform(cite_types, lambda t: t <> 'OBJECT')) THEN 'cited must be a list of objects'
            WHEN list_bool_or(list_transform(docs, lambda d: coalesce(left(d.chunk_id, 1), 'n') NOT IN ('"', 'n')))
                THEN 'retrieved chunk_id must be a string'
            WHEN list_bool_or(list_transform(docs, lambda d: coalesce(left(d.content, 1), 'n') NOT IN ('"', 'n')))
                THEN 'retrieved content must be a string'
            WHEN list_bool_or(list_transform(docs, lambda d:
                     NOT coalesce(isfinite(TRY_CAST(CAST(d.score AS VARCHAR) AS DOUBLE)), TRUE)
                     OR coalesce(left(d.score, 1), 'n') NOT IN ('-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'n')))
                THEN 'retrieved score must be a finite number'
            WHEN list_bool_or(list_transform(cites, lambda c: coalesce(left(c.chunk_id, 1), 'n') NOT IN ('"', 'n')))
                THEN 'cited chunk_id must be a string'
            WHEN list_bool_or(list_transform(cites, lambda c: coalesce(left(c.quote, 1), 'n') NOT IN ('"', 'n')))
                THEN 'cited quote must be a string'
        END AS error
    FROM parsed
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
