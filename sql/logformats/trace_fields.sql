-- Spans and events of a trace format (otlp, openinference): one row per span or event of
-- trace_spans, with the values of the attributes evalwh reads, by either convention: OpenInference
-- (openinference.span.kind, input.value, output.value, session.id, llm.model_name) and the
-- OpenTelemetry GenAI conventions (gen_ai.operation.name, gen_ai.conversation.id, the request and
-- response models, gen_ai.response.finish_reasons, gen_ai.retrieval.query.text). Where a span
-- holds a key more than once, the first written counts. finish_reasons is the string[] joined
-- with commas (or the value as written, when it is one string).
WITH firsts AS (
    SELECT
        attribute_order.item                                                                          AS item_order,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'openinference.span.kind')          AS kind,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.operation.name')           AS operation,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'input.value')                     AS input_value,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'output.value')                    AS output_value,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'session.id')                      AS session_value,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.conversation.id')          AS conversation_id,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'llm.model_name')                  AS llm_model,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.request.model')            AS request_model,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.response.model')           AS response_model,
        arg_min(text_value, attribute_order) FILTER (WHERE key = 'gen_ai.retrieval.query.text')     AS query_text,
        arg_min(CASE WHEN any_value IS NOT NULL THEN array_to_string(list_transform(
                         json_transform(any_value, '{"arrayValue": {"values": [{"stringValue": "VARCHAR"}]}}')
                             .arrayValue."values", lambda v: v.stringValue), ',')
                     WHEN starts_with(text_value, '[') AND json_valid(text_value)
                         THEN array_to_string(json_transform(text_value, '["VARCHAR"]'), ',')
                     ELSE text_value END, attribute_order)
            FILTER (WHERE key = 'gen_ai.response.finish_reasons')                                    AS finish_reasons,
        count(*) FILTER (WHERE key = 'gen_ai.output.messages') > 0                                   AS has_output_messages
    FROM trace_attributes
    GROUP BY attribute_order.item
)
SELECT
    s.file,
    s.line,
    s.signal,
    s.trace_id,
    s.span_id,
    s.parent_id,
    s.start_time,
    s.item_order,
    s.raw,
    f.kind,
    f.operation,
    f.input_value,
    f.output_value,
    f.session_value,
    f.conversation_id,
    f.llm_model,
    f.request_model,
    f.response_model,
    f.query_text,
    f.finish_reasons,
    -- a model call: an LLM span, a GenAI inference span or event, or anything holding output messages
    coalesce(f.kind = 'LLM' OR f.operation IN ('chat', 'text_completion', 'generate_content')
             OR f.has_output_messages, FALSE)                           AS is_inference
FROM trace_spans AS s
LEFT JOIN firsts AS f ON f.item_order = s.item_order
