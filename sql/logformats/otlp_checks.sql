-- OTLP JSON: one row per record that is no OTLP export (no resourceSpans or resourceLogs), or
-- whose lists are not lists (file, line, error): resourceSpans, resourceLogs,
-- scopeSpans, spans and a span's attributes are lists, and so are a gen_ai.retrieval.documents
-- value (a JSON string holding a list, or an arrayValue) and its kvlistValue values. The
-- otlp_*.sql SELECTs read a value of another type as absent; these checks keep such a record
-- out of the warehouse instead (DuckDB only: Spark imports do not check).
WITH parsed AS (
    SELECT
        file,
        line,
        json_type(record, '$.resourceSpans')                                         AS resource_type,
        json_type(record, '$.resourceLogs')                                          AS logs_type,
        json_type(record, '$.resourceSpans[*].scopeSpans')                            AS scope_types,
        json_type(record, '$.resourceSpans[*].scopeSpans[*].spans')                   AS span_types,
        json_type(record, '$.resourceSpans[*].scopeSpans[*].spans[*].attributes')     AS attribute_types,
        list_filter(json_extract(record, '$.resourceSpans[*].scopeSpans[*].spans[*].attributes[*]'),
                    lambda kv: json_extract_string(kv, '$.key') = 'gen_ai.retrieval.documents') AS documents
    FROM log_raw
),
errors AS (
    SELECT
        file,
        line,
        CASE
            WHEN resource_type IS NULL AND logs_type IS NULL
                THEN 'not an OTLP export: it has no resourceSpans or resourceLogs'
            WHEN coalesce(resource_type, 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'resourceSpans must be a list'
            WHEN coalesce(logs_type, 'NULL') NOT IN ('ARRAY', 'NULL') THEN 'resourceLogs must be a list'
            WHEN list_bool_or(list_transform(scope_types, lambda t: t NOT IN ('ARRAY', 'NULL')))
                THEN 'scopeSpans must be a list'
            WHEN list_bool_or(list_transform(span_types, lambda t: t NOT IN ('ARRAY', 'NULL')))
                THEN 'spans must be a list'
            WHEN list_bool_or(list_transform(attribute_types, lambda t: t NOT IN ('ARRAY', 'NULL')))
                THEN 'a span''s attributes must be a list'
            -- TRY_CAST: DuckDB evaluates both sides of the AND, and a string that is not JSON (even '')
            -- fails a CAST
            WHEN list_bool_or(list_transform(documents, lambda kv:
                     json_valid(json_extract_string(kv, '$.value.stringValue'))
                     AND json_type(TRY_CAST(json_extract_string(kv, '$.value.stringValue') AS JSON)) <> 'ARRAY'))
                THEN 'gen_ai.retrieval.documents must be a JSON list'
            WHEN list_bool_or(list_transform(documents, lambda kv:
                     coalesce(json_type(kv, '$.value.arrayValue.values'), 'NULL') NOT IN ('ARRAY', 'NULL')
                     OR list_bool_or(list_transform(json_type(kv, '$.value.arrayValue.values[*].kvlistValue.values'),
                                                    lambda t: t NOT IN ('ARRAY', 'NULL')))))
                THEN 'gen_ai.retrieval.documents values must be lists'
        END AS error
    FROM parsed
)
SELECT file, line, error FROM errors WHERE error IS NOT NULL
