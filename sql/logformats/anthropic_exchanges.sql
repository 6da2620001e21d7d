-- Logged Anthropic Messages API exchanges, one a record: {"request_id"?, "timestamp"?,
-- "request": <the create() arguments>, "response": <the Message>}, the request and the response each
-- an object or the JSON text of one (a Message logged by model_dump_json()). One row per record,
-- with both parsed; request_id is the record's request_id (the SDK's message._request_id), else
-- the response's id.
WITH texts AS (
    SELECT file, line, record,
           -- an object's JSON text, or a string's text: either way the JSON of the object
           json_extract_string(record, '$.request')   AS request_text,
           json_extract_string(record, '$.response')  AS response_text
    FROM log_raw
),
parsed AS (
    SELECT file, line, record,
           CASE WHEN json_valid(request_text) THEN CAST(request_text AS JSON) END   AS request,
           CASE WHEN json_valid(response_text) THEN CAST(response_text AS JSON) END AS response
    FROM texts
)
SELECT
    file,
    line,
    record,
    request,
    response,
    coalesce(json_extract_string(record, '$.request_id'), json_extract_string(response, '$.id'))  AS request_id,
    json_transform(request, '{"messages": ["JSON"]}').messages                                   AS messages,
    json_transform(response, '{"content": ["JSON"]}').content                                    AS content
FROM parsed
