-- OpenInference / Phoenix spans: one row per attribute of each span of trace_spans
-- (openinference_spans.sql), the shape trace_*.sql read (trace_attributes). Attributes come
-- flat (the key "input.value"), nested ({"input": {"value": ...}}: the keys trace_*.sql read are
-- looked up along their path), or as a Parquet export's "attributes.<key>" columns. text_value is a
-- string value, or the JSON text of any other value (a nested list of documents, a number);
-- any_value, the OTLP form of a structured value, is NULL here. A flat key counts before a nested
-- one of the same name, which counts before a Parquet column; the span's own span_kind field
-- counts last, as its openinference.span.kind.
WITH flat AS (
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order,
           json_first_map(attributes) AS entries  -- a key written twice: its first value
    FROM trace_spans
),
flat_keys AS (
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order, entries,
           unnest(list_transform(range(1, array_length(map_keys(entries)) + 1),
                                 lambda i: struct_pack(key := map_keys(entries)[i], i := i))) AS k
    FROM flat
),
known_keys AS (
    -- the keys trace_*.sql read, each with the JSON path of its nested form
    SELECT key, '$.' || key AS path
    FROM (VALUES ('openinference.span.kind'), ('input.value'), ('output.value'), ('session.id'),
                 ('llm.model_name'), ('retrieval.documents'), ('gen_ai.operation.name'),
                 ('gen_ai.conversation.id'), ('gen_ai.request.model'), ('gen_ai.response.model'),
                 ('gen_ai.response.finish_reasons'), ('gen_ai.retrieval.query.text'),
                 ('gen_ai.input.messages'), ('gen_ai.output.messages'),
                 ('gen_ai.retrieval.documents')) AS known(key)
),
nested AS (
    SELECT s.signal, s.trace_id, s.span_id, s.parent_id, s.start_time, s.item_order, k.key,
           json_extract_string(s.attributes, k.path) AS text_value
    FROM trace_spans AS s
    CROSS JOIN known_keys AS k
),
record_entries AS (
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order,
           json_first_map(raw) AS entries
    FROM trace_spans
),
columns AS (
    -- a Parquet export's "attributes.<key>" columns
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order, substr(k, 12) AS key, entries[k] AS text_value
    FROM (SELECT *, unnest(map_keys(entries)) AS k FROM record_entries) AS c
    WHERE starts_with(k, 'attributes.')
),
leaves AS (
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order, 1 AS form, k.i AS attribute_no,
           k.key, entries[k.key] AS text_value
    FROM flat_keys
    WHERE entries[k.key] IS NOT NULL  -- a Parquet export has every key, mostly null
    UNION ALL
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order, 2, 0, key, text_value
    FROM nested
    WHERE text_value IS NOT NULL
    UNION ALL
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order, 3, 0, key, text_value
    FROM columns
    WHERE text_value IS NOT NULL
    UNION ALL
    -- a span's top-level span_kind stands for its openinference.span.kind attribute when that is missing
    SELECT signal, trace_id, span_id, parent_id, start_time, item_order, 4, 0, 'openinference.span.kind',
           json_extract_string(raw, '$.span_kind')
    FROM trace_spans
    WHERE json_extract_string(raw, '$.span_kind') IS NOT NULL
)
SELECT
    signal,
    trace_id,
    span_id,
    parent_id,
    start_time,
    struct_pack(item := item_order, form := form, attribute := attribute_no)            AS attribute_order,
    key,
    text_value,
    CAST(NULL AS JSON)                                                                  AS any_value
FROM leaves
