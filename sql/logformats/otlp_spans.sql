-- OTLP JSON files (the OTLP JSON file exporter, protobuf's MessageToJson, a collector's file
-- exporter): one row per span of resourceSpans/scopeSpans/spans, and per GenAI inference-details
-- event of resourceLogs/scopeLogs/logRecords (eventName gen_ai.client.inference.operation.details),
-- the shape trace_*.sql read (trace_spans). A record may hold both. Trace and span ids are
-- normalised to lower-case hex whether the file wrote them as hex or as base64; start_time is the
-- span's startTimeUnixNano, or the event's timeUnixNano, as ISO 8601 UTC. item_order is the place
-- in the file, so that "the first" of several values is the first written.
WITH resource_lists AS (
    SELECT file, line,
           json_transform(record, '{"resourceSpans": ["JSON"], "resourceLogs": ["JSON"]}') AS r
    FROM log_raw
),
resources AS (
    -- each element with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, 'span' AS signal,
           unnest(list_transform(range(1, array_length(r.resourceSpans) + 1),
                                 lambda i: struct_pack(item := r.resourceSpans[i], i := i))) AS rs
    FROM resource_lists
    UNION ALL
    SELECT file, line, 'event' AS signal,
           unnest(list_transform(range(1, array_length(r.resourceLogs) + 1),
                                 lambda i: struct_pack(item := r.resourceLogs[i], i := i))) AS rs
    FROM resource_lists
),
scope_lists AS (
    SELECT file, line, signal, rs.i AS rs_no,
           CASE WHEN signal = 'span' THEN json_transform(rs.item, '{"scopeSpans": ["JSON"]}').scopeSpans
                ELSE json_transform(rs.item, '{"scopeLogs": ["JSON"]}').scopeLogs END AS items
    FROM resources
),
scopes AS (
    SELECT file, line, signal, rs_no,
           unnest(list_transform(range(1, array_length(items) + 1),
                                 lambda i: struct_pack(item := items[i], i := i))) AS ss
    FROM scope_lists
),
item_lists AS (
    SELECT file, line, signal, rs_no, ss.i AS ss_no,
           CASE WHEN signal = 'span' THEN json_transform(ss.item, '{"spans": ["JSON"]}').spans
                ELSE json_transform(ss.item, '{"logRecords": ["JSON"]}').logRecords END AS items
    FROM scopes
),
items AS (
    SELECT file, line, signal, rs_no, ss_no,
           unnest(list_transform(range(1, array_length(items) + 1),
                                 lambda i: struct_pack(item := items[i], i := i))) AS s
    FROM item_lists
),
fields AS (
    SELECT file, line, signal, rs_no, ss_no, s.i AS item_no, s.item,
           json_extract_string(s.item, '$.traceId')                                      AS trace_text,
           json_extract_string(s.item, '$.spanId')                                       AS span_text,
           CASE WHEN signal = 'span' THEN coalesce(json_extract_string(s.item, '$.parentSpanId'), '') END
                                                                                         AS parent_text,
           CASE WHEN signal = 'span' THEN json_extract_string(s.item, '$.startTimeUnixNano')
                ELSE coalesce(json_extract_string(s.item, '$.timeUnixNano'),
                              json_extract_string(s.item, '$.observedTimeUnixNano')) END AS nanos
    FROM items
    WHERE signal = 'span'
       OR json_extract_string(s.item, '$.eventName') = 'gen_ai.client.inference.operation.details'
)
SELECT
    file,
    line,
    signal,
    CASE WHEN regexp_matches(trace_text, '^[0-9a-fA-F]{32}\z') THEN lower(trace_text)
         ELSE lower(hex(from_base64(trace_text))) END                                    AS trace_id,
    CASE WHEN regexp_matches(span_text, '^[0-9a-fA-F]{16}\z') THEN lower(span_text)
         ELSE lower(hex(from_base64(span_text))) END                                     AS span_id,
    CASE WHEN parent_text = '' THEN NULL
         WHEN regexp_matches(parent_text, '^[0-9a-fA-F]{16}\z') THEN lower(parent_text)
         ELSE lower(hex(from_base64(parent_text))) END                                   AS parent_id,
    strftime(make_timestamp(CAST(nanos AS BIGINT) // 1000), '%Y-%m-%dT%H:%M:%S.%fZ')     AS start_time,
    struct_pack(file := file, line := line, resource := rs_no, scope := ss_no, item := item_no) AS item_order,
    json_transform(item, '{"attributes": ["JSON"]}').attributes                           AS attributes,
    item                                                                                  AS raw
FROM fields
