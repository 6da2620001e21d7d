-- GenAI input and output messages (gen_ai.input.messages, gen_ai.output.messages) of each span
-- and event of a trace format: one row per text part of a message, with the message's role and
-- finish_reason. A messages value is structured (OTLP key-value lists: any_value) or a JSON
-- string holding the same list (the conventions' fallback); where a span holds the key twice,
-- the first written counts. Parts of other types (tool calls, blobs) are not listed.
WITH values_first AS (
    SELECT item, key, arg_min(any_value, attribute_order) AS any_value, arg_min(text_value, attribute_order) AS text_value
    FROM (SELECT attribute_order.item AS item, key, any_value, text_value, attribute_order
          FROM trace_attributes
          WHERE key IN ('gen_ai.input.messages', 'gen_ai.output.messages')) AS m
    GROUP BY item, key
),
lists AS (
    SELECT item, CASE WHEN key = 'gen_ai.input.messages' THEN 'input' ELSE 'output' END AS direction,
           json_transform(any_value, '{"arrayValue": {"values": ["JSON"]}}').arrayValue."values"      AS any_messages,
           CASE WHEN any_value IS NULL AND json_valid(text_value) AND starts_with(ltrim(text_value), '[')
                THEN json_transform(text_value, '["JSON"]') END                                       AS text_messages
    FROM values_first
),
any_messages AS (
    -- each element with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT item, direction,
           unnest(list_transform(range(1, array_length(any_messages) + 1),
                                 lambda i: struct_pack(m := any_messages[i], i := i))) AS m
    FROM lists
),
any_entries AS (
    SELECT item, direction, m.i AS message_no,
           unnest(list_transform(range(1, array_length(json_transform(m.m, '{"kvlistValue": {"values": ["JSON"]}}')
                                                       .kvlistValue."values") + 1),
                                 lambda i: struct_pack(kv := json_transform(m.m, '{"kvlistValue": {"values": ["JSON"]}}')
                                                                .kvlistValue."values"[i], i := i))) AS e
    FROM any_messages
),
any_fields AS (
    SELECT item, direction, message_no,
           arg_min(json_extract_string(e.kv, '$.value.stringValue'), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'role')                AS role,
           arg_min(json_extract_string(e.kv, '$.value.stringValue'), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'finish_reason')       AS finish_reason,
           arg_min(json_transform(e.kv, '{"value": {"arrayValue": {"values": ["JSON"]}}}').value.arrayValue."values", e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'parts')               AS parts
    FROM any_entries
    GROUP BY item, direction, message_no
),
any_parts AS (
    SELECT item, direction, message_no, role, finish_reason,
           unnest(list_transform(range(1, array_length(parts) + 1),
                                 lambda i: struct_pack(p := parts[i], i := i))) AS p
    FROM any_fields
),
any_part_entries AS (
    SELECT item, direction, message_no, role, finish_reason, p.i AS part_no,
           unnest(list_transform(range(1, array_length(json_transform(p.p, '{"kvlistValue": {"values": ["JSON"]}}')
                                                       .kvlistValue."values") + 1),
                                 lambda i: struct_pack(kv := json_transform(p.p, '{"kvlistValue": {"values": ["JSON"]}}')
                                                                .kvlistValue."values"[i], i := i))) AS e
    FROM any_parts
),
any_part_fields AS (
    SELECT item, direction, message_no, role, finish_reason, part_no,
           arg_min(json_extract_string(e.kv, '$.value.stringValue'), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'type')                AS part_type,
           arg_min(json_extract_string(e.kv, '$.value.stringValue'), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'content')             AS content
    FROM any_part_entries
    GROUP BY item, direction, message_no, role, finish_reason, part_no
),
text_messages AS (
    SELECT item, direction,
           unnest(list_transform(range(1, array_length(text_messages) + 1),
                                 lambda i: struct_pack(m := text_messages[i], i := i))) AS m
    FROM lists
),
text_parts AS (
    SELECT item, direction, m.i AS message_no,
           json_extract_string(m.m, '$.role')                                            AS role,
           json_extract_string(m.m, '$.finish_reason')                                   AS finish_reason,
           unnest(list_transform(range(1, array_length(json_transform(m.m, '{"parts": ["JSON"]}').parts) + 1),
                                 lambda i: struct_pack(p := json_transform(m.m, '{"parts": ["JSON"]}').parts[i],
                                                       i := i)))                         AS p
    FROM text_messages
),
parts AS (
    SELECT item, direction, message_no, role, finish_reason, part_no, part_type, content FROM any_part_fields
    UNION ALL
    SELECT item, direction, message_no, role, finish_reason, p.i AS part_no,
           json_extract_string(p.p, '$.type') AS part_type, json_extract_string(p.p, '$.content') AS content
    FROM text_parts
)
SELECT f.trace_id, f.signal, f.start_time, f.item_order, p.direction, p.message_no, p.role, p.finish_reason,
       p.part_no, p.content
FROM parts AS p
JOIN trace_fields AS f ON f.item_order = p.item
WHERE p.part_type = 'text' AND p.content IS NOT NULL
