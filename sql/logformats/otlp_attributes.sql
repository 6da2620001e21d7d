-- OTLP JSON: one row per attribute of each span and event of trace_spans (otlp_spans.sql), the
-- shape trace_*.sql read (trace_attributes). A string, int, double or bool value is text_value;
-- an array or key-value list (a structured value, as the GenAI conventions record messages and
-- documents) is any_value, the OTLP AnyValue as written ({"arrayValue": ...}). attribute_order
-- is the attribute's place in the file.
WITH numbered AS (
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order,
           unnest(list_transform(range(1, array_length(attributes) + 1),
                                 lambda i: struct_pack(kv := attributes[i], i := i))) AS a
    FROM trace_spans
)
SELECT
    signal,
    trace_id,
    span_id,
    parent_id,
    start_time,
    struct_pack(item := item_order, form := 1, attribute := a.i)                           AS attribute_order,
    json_extract_string(a.kv, '$.key')                                                      AS key,
    coalesce(json_extract_string(a.kv, '$.value.stringValue'), json_extract_string(a.kv, '$.value.intValue'),
             json_extract_string(a.kv, '$.value.doubleValue'), json_extract_string(a.kv, '$.value.boolValue'))
                                                                                            AS text_value,
    CASE WHEN json_extract(a.kv, '$.value.arrayValue') IS NOT NULL
           OR json_extract(a.kv, '$.value.kvlistValue') IS NOT NULL
         THEN json_extract(a.kv, '$.value') END                                            AS any_value
FROM numbered
