-- OTLP JSON trace files (resourceSpans / scopeSpans / spans): one row per (span, attribute)
-- with the attribute's value as text (string, int, double or bool) or as JSON (array and
-- kvlist values). Trace and span ids are normalised to lower-case hex whether the file
-- wrote them as hex or as base64.
WITH spans AS (
    SELECT r.file, r.line, s.span
    FROM log_raw AS r,
         unnest(CAST(coalesce(r.record -> 'resourceSpans', '[]') AS JSON[])) AS rs(resource_spans),
         unnest(CAST(coalesce(rs.resource_spans -> 'scopeSpans', '[]') AS JSON[])) AS ss(scope_spans),
         unnest(CAST(coalesce(ss.scope_spans -> 'spans', '[]') AS JSON[])) AS s(span)
),
ids AS (
    SELECT
        file,
        line,
        span,
        CASE WHEN regexp_full_match(span ->> 'traceId', '[0-9a-fA-F]{32}') THEN lower(span ->> 'traceId')
             ELSE lower(hex(from_base64(span ->> 'traceId'))) END                          AS trace_id,
        CASE WHEN coalesce(span ->> 'parentSpanId', '') = '' THEN NULL
             WHEN regexp_full_match(span ->> 'parentSpanId', '[0-9a-fA-F]{16}') THEN lower(span ->> 'parentSpanId')
             ELSE lower(hex(from_base64(span ->> 'parentSpanId'))) END                     AS parent_id,
        strftime(make_timestamp(CAST(CAST(span ->> 'startTimeUnixNano' AS HUGEINT) // 1000 AS BIGINT)),
                 '%Y-%m-%dT%H:%M:%S.%fZ')                                                  AS start_time
    FROM spans
)
SELECT
    i.file,
    i.line,
    i.trace_id,
    i.parent_id,
    i.start_time,
    i.span,
    a.kv ->> 'key'                                                                          AS key,
    coalesce(a.kv -> 'value' ->> 'stringValue', a.kv -> 'value' ->> 'intValue',
             a.kv -> 'value' ->> 'doubleValue', a.kv -> 'value' ->> 'boolValue')          AS text_value,
    coalesce(a.kv -> 'value' -> 'arrayValue', a.kv -> 'value' -> 'kvlistValue')            AS json_value
FROM ids AS i, unnest(CAST(coalesce(i.span -> 'attributes', '[]') AS JSON[])) AS a(kv)
