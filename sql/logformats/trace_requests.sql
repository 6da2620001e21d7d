-- A trace format's requests (otlp, openinference): a request is a trace. Its root span (no
-- parent; the first, where a trace has two) gives the time and the raw record; a trace with no
-- span in the import but with inference-details events is a request of its events, timed by the
-- first. A trace whose spans arrived without their root is not a request yet (see the import).
--   question       the root's input.value (OpenInference), else the last user message's text parts
--                  of the trace's first model call (gen_ai.input.messages), else the first
--                  gen_ai.retrieval.query.text
--   answer         the root's output.value, else the text parts of the first output message of
--                  the trace's last model call (gen_ai.output.messages)
--   model          gen_ai.response.model, else gen_ai.request.model, else llm.model_name: the first
--                  written in the trace
--   session_id     gen_ai.conversation.id, else session.id
--   finish_reason  the last model call's gen_ai.response.finish_reasons, else its first output
--                  message's finish_reason
-- refused and metadata: the span formats record neither (NULL).
WITH roots AS (
    SELECT trace_id, arg_min(struct_pack(file := file, line := line, start_time := start_time, raw := raw,
                                         input_value := input_value, output_value := output_value), item_order) AS r
    FROM trace_fields
    WHERE signal = 'span' AND parent_id IS NULL
    GROUP BY trace_id
),
event_roots AS (
    SELECT trace_id, arg_min(struct_pack(file := file, line := line, start_time := start_time, raw := raw,
                                         input_value := input_value, output_value := output_value),
                             struct_pack(t := start_time, o := item_order)) AS r
    FROM trace_fields AS e
    WHERE signal = 'event'
      AND NOT EXISTS (SELECT 1 FROM trace_fields AS s WHERE s.signal = 'span' AND s.trace_id = e.trace_id)
    GROUP BY trace_id
),
requests AS (
    SELECT * FROM roots
    UNION ALL
    SELECT * FROM event_roots
),
calls AS (
    -- the trace's model calls in time order
    SELECT trace_id, item_order, finish_reasons,
           row_number() OVER (PARTITION BY trace_id ORDER BY start_time, item_order)      AS first_no,
           row_number() OVER (PARTITION BY trace_id ORDER BY start_time DESC, item_order DESC) AS last_no
    FROM trace_fields
    WHERE is_inference
),
user_texts AS (
    SELECT m.trace_id, m.item_order, m.message_no,
           array_to_string(list_transform(list_sort(array_agg(struct_pack(n := m.part_no, text := m.content))),
                                          lambda s: s.text), ' ') AS text
    FROM trace_messages AS m
    WHERE m.direction = 'input' AND m.role = 'user'
    GROUP BY m.trace_id, m.item_order, m.message_no
),
questions AS (
    SELECT c.trace_id, arg_max(u.text, u.message_no) AS question
    FROM calls AS c
    JOIN user_texts AS u ON u.trace_id = c.trace_id AND u.item_order = c.item_order
    WHERE c.first_no = 1
    GROUP BY c.trace_id
),
answers AS (
    SELECT c.trace_id,
           array_to_string(list_transform(list_sort(array_agg(struct_pack(n := m.part_no, text := m.content))),
                                          lambda s: s.text), '') AS answer,
           min(m.finish_reason) AS message_finish
    FROM calls AS c
    JOIN trace_messages AS m ON m.trace_id = c.trace_id AND m.item_order = c.item_order
    WHERE c.last_no = 1 AND m.direction = 'output' AND m.message_no = 1
    GROUP BY c.trace_id
),
trace_values AS (
    SELECT
        trace_id,
        arg_min(response_model, item_order) FILTER (WHERE response_model IS NOT NULL)     AS response_model,
        arg_min(request_model, item_order) FILTER (WHERE request_model IS NOT NULL)       AS request_model,
        arg_min(llm_model, item_order) FILTER (WHERE llm_model IS NOT NULL)               AS llm_model,
        arg_min(conversation_id, item_order) FILTER (WHERE conversation_id IS NOT NULL)   AS conversation_id,
        arg_min(session_value, item_order) FILTER (WHERE session_value IS NOT NULL)       AS session_value,
        arg_min(query_text, item_order) FILTER (WHERE query_text IS NOT NULL)             AS query_text
    FROM trace_fields
    GROUP BY trace_id
)
SELECT
    q.r.file                                                          AS file,
    q.r.line                                                          AS line,
    q.trace_id                                                        AS request_id,
    coalesce(v.conversation_id, v.session_value)                      AS session_id,
    q.r.start_time                                                    AS ts_text,
    coalesce(q.r.input_value, qu.question, v.query_text)              AS question,
    coalesce(q.r.output_value, a.answer)                              AS answer,
    coalesce(v.response_model, v.request_model, v.llm_model)          AS model,
    coalesce(c.finish_reasons, a.message_finish)                      AS finish_reason,
    CAST(NULL AS VARCHAR)                                             AS refused_text,
    CAST(NULL AS VARCHAR)                                             AS metadata,
    q.r.raw                                                           AS raw
FROM requests AS q
LEFT JOIN trace_values AS v ON v.trace_id = q.trace_id
LEFT JOIN questions AS qu ON qu.trace_id = q.trace_id
LEFT JOIN answers AS a ON a.trace_id = q.trace_id
LEFT JOIN calls AS c ON c.trace_id = q.trace_id AND c.last_no = 1
