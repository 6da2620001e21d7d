-- OTLP JSON trace files (resourceSpans / scopeSpans / spans): one row per (span, attribute)
-- with the attribute's value as text (string, int, double or bool) or as JSON (array and
-- kvlist values), and the attribute's place in the file (attribute_order) so that "the first"
-- of several values is the first written. Trace and span ids are normalised to lower-case hex
-- whether the file wrote them as hex or as base64.
WITH resource_lists AS (
    SELECT file, line, json_transform(record, '{"resourceSpans": ["JSON"]}').resourceSpans AS items
    FROM log_raw
),
resource_spans AS (
    -- each element with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line,
           unnest(list_transform(range(1, array_length(items) + 1),
                                 lambda i: struct_pack(item := items[i], i := i))) AS rs
    FROM resource_lists
),
scope_lists AS (
    SELECT file, line, rs.i AS rs_no, json_transform(rs.item, '{"scopeSpans": ["JSON"]}').scopeSpans AS items
    FROM resource_spans
),
scope_spans AS (
    SELECT file, line, rs_no,
           unnest(list_transform(range(1, array_length(items) + 1),
                                 lambda i: struct_pack(item := items[i], i := i))) AS ss
    FROM scope_lists
),
span_lists AS (
    SELECT file, line, rs_no, ss.i AS ss_no, json_transform(ss.item, '{"spans": ["JSON"]}').spans AS items
    FROM scope_spans
),
spans AS (
    SELECT file, line, rs_no, ss_no,
           unnest(list_transform(range(1, array_length(items) + 1),
                                 lambda i: struct_pack(item := items[i], i := i))) AS s
    FROM span_lists
),
ids AS (
    SELECT
        file,
        line,
        rs_no,
        ss_no,
        s.i                                                                                AS span_no,
        s.item                                                                             AS span,
        json_transform(s.item, '{"attributes": ["JSON"]}').attributes                      AS attributes,
        CASE WHEN regexp_matches(json_extract_string(s.item, '$.traceId'), '^[0-9a-fA-F]{32}\z')
             THEN lower(json_extract_string(s.item, '$.traceId'))
             ELSE lower(hex(from_base64(json_extract_string(s.item, '$.traceId')))) END   AS trace_id,
        CASE WHEN coalesce(json_extract_string(s.item, '$.parentSpanId'), '') = '' THEN NULL
             WHEN regexp_matches(json_extract_string(s.item, '$.parentSpanId'), '^[0-9a-fA-F]{16}\z')
             THEN lower(json_extract_string(s.item, '$.parentSpanId'))
             ELSE lower(hex(from_base64(json_extract_string(s.item, '$.parentSpanId')))) END AS parent_id,
        strftime(make_timestamp(CAST(json_extract_string(s.item, '$.startTimeUnixNano') AS BIGINT) // 1000),
                 '%Y-%m-%dT%H:%M:%S.%fZ')                                                  AS start_time
    FROM spans
),
attributes AS (
    SELECT file, line, rs_no, ss_no, span_no, span, trace_id, parent_id, start_time,
           unnest(list_transform(range(1, array_length(attributes) + 1),
                                 lambda i: struct_pack(kv := attributes[i], i := i))) AS a
    FROM ids
)
SELECT
    file,
    line,
    trace_id,
    parent_id,
    start_time,
    span,
    struct_pack(file := file, line := line, resource := rs_no, scope := ss_no, span := span_no, attribute := a.i)
                                                                                            AS attribute_order,
    json_extract_string(a.kv, '$.key')                                                      AS key,
    coalesce(json_extract_string(a.kv, '$.value.stringValue'), json_extract_string(a.kv, '$.value.intValue'),
             json_extract_string(a.kv, '$.value.doubleValue'), json_extract_string(a.kv, '$.value.boolValue'))
                                                                                            AS text_value,
    coalesce(json_extract(a.kv, '$.value.arrayValue'), json_extract(a.kv, '$.value.kvlistValue')) AS json_value
FROM attributes
