-- The retrieved documents of a trace format (otlp, openinference): one row per document a span
-- lists, ranked by ranked_documents.sql. A span lists its documents by OpenInference's
-- conventions (flat retrieval.documents.N.document.{id, score, content, metadata}, or a nested
-- list retrieval.documents of {"document": {...}} or {"document.id": ...}), or, where it has
-- none of those, by the GenAI conventions' gen_ai.retrieval.documents (a structured list of
-- key-value lists, or a JSON string of objects, each {id, score} and perhaps content).
-- A document's chunk id is its id, else the first of the import's id keys (log_id_keys: id,
-- chunk_id, doc_id, document_id by default) that its metadata holds; id_source says which
-- (id, metadata, none). A document without either is kept, with no chunk id.
WITH flat_parts AS (
    SELECT attribute_order.item AS item, attribute_order,
           TRY_CAST(regexp_extract(key, '^retrieval\.documents\.(\d+)\.document\.', 1) AS INTEGER) AS doc_index,
           regexp_extract(key, '^retrieval\.documents\.\d+\.document\.(id|score|content|metadata)\z', 1) AS field,
           text_value
    FROM trace_attributes
    WHERE regexp_matches(key, '^retrieval\.documents\.\d+\.document\.(id|score|content|metadata)\z')
),
flat AS (
    SELECT item, 1 AS convention, doc_index,
           arg_min(text_value, attribute_order) FILTER (WHERE field = 'id')        AS id,
           arg_min(text_value, attribute_order) FILTER (WHERE field = 'score')     AS score,
           arg_min(text_value, attribute_order) FILTER (WHERE field = 'content')   AS content,
           arg_min(text_value, attribute_order) FILTER (WHERE field = 'metadata')  AS metadata
    FROM flat_parts
    GROUP BY item, doc_index
),
nested_lists AS (
    SELECT attribute_order.item AS item, json_transform(arg_min(text_value, attribute_order), '["JSON"]') AS docs
    FROM trace_attributes
    WHERE key = 'retrieval.documents' AND json_valid(text_value)
    GROUP BY attribute_order.item
),
nested_docs AS (
    -- each document with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT item,
           unnest(list_transform(range(1, array_length(docs) + 1),
                                 lambda i: struct_pack(doc := docs[i], i := i))) AS d
    FROM nested_lists
),
nested AS (
    SELECT item, 1 AS convention, CAST(d.i - 1 AS INTEGER) AS doc_index,
           coalesce(json_extract_string(d.doc, '$.document.id'), json_extract_string(d.doc, '$."document.id"')) AS id,
           coalesce(json_extract_string(d.doc, '$.document.score'),
                    json_extract_string(d.doc, '$."document.score"'))                              AS score,
           coalesce(json_extract_string(d.doc, '$.document.content'),
                    json_extract_string(d.doc, '$."document.content"'))                            AS content,
           coalesce(json_extract_string(d.doc, '$.document.metadata'),
                    json_extract_string(d.doc, '$."document.metadata"'))                           AS metadata
    FROM nested_docs
    WHERE starts_with(d.doc, '{')  -- an object, not a string or a number
),
genai_values AS (
    SELECT attribute_order.item AS item, arg_min(any_value, attribute_order) AS any_value,
           arg_min(text_value, attribute_order) AS text_value
    FROM trace_attributes
    WHERE key = 'gen_ai.retrieval.documents'
    GROUP BY attribute_order.item
),
genai_string_docs AS (
    SELECT item,
           unnest(list_transform(range(1, array_length(json_transform(text_value, '["JSON"]')) + 1),
                                 lambda i: struct_pack(doc := json_transform(text_value, '["JSON"]')[i], i := i))) AS d
    FROM genai_values
    WHERE any_value IS NULL AND json_valid(text_value)
),
genai_string AS (
    SELECT item, 2 AS convention, CAST(d.i - 1 AS INTEGER) AS doc_index,
           json_extract_string(d.doc, '$.id') AS id, json_extract_string(d.doc, '$.score') AS score,
           json_extract_string(d.doc, '$.content') AS content, json_extract_string(d.doc, '$.metadata') AS metadata
    FROM genai_string_docs
    WHERE starts_with(d.doc, '{')
),
genai_structured_docs AS (
    SELECT item,
           unnest(list_transform(range(1, array_length(json_transform(any_value, '{"arrayValue": {"values": ["JSON"]}}')
                                                       .arrayValue."values") + 1),
                                 lambda i: struct_pack(doc := json_transform(any_value, '{"arrayValue": {"values": ["JSON"]}}')
                                                                 .arrayValue."values"[i], i := i))) AS d
    FROM genai_values
    WHERE any_value IS NOT NULL
),
genai_entries AS (
    SELECT item, CAST(d.i - 1 AS INTEGER) AS doc_index,
           unnest(list_transform(range(1, array_length(json_transform(d.doc, '{"kvlistValue": {"values": ["JSON"]}}')
                                                       .kvlistValue."values") + 1),
                                 lambda i: struct_pack(kv := json_transform(d.doc, '{"kvlistValue": {"values": ["JSON"]}}')
                                                                .kvlistValue."values"[i], i := i))) AS e
    FROM genai_structured_docs
),
genai_structured AS (
    SELECT item, 2 AS convention, doc_index,
           arg_min(coalesce(json_extract_string(e.kv, '$.value.stringValue'), json_extract_string(e.kv, '$.value.intValue')), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'id')                          AS id,
           arg_min(coalesce(json_extract_string(e.kv, '$.value.doubleValue'), json_extract_string(e.kv, '$.value.intValue')), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'score')                       AS score,
           arg_min(json_extract_string(e.kv, '$.value.stringValue'), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'content')                     AS content,
           arg_min(json_extract_string(e.kv, '$.value.stringValue'), e.i)
               FILTER (WHERE json_extract_string(e.kv, '$.key') = 'metadata')                    AS metadata
    FROM genai_entries
    GROUP BY item, doc_index
),
listed AS (
    SELECT * FROM flat UNION ALL SELECT * FROM nested
    UNION ALL SELECT * FROM genai_string UNION ALL SELECT * FROM genai_structured
),
chosen AS (
    -- a span's OpenInference documents, else its GenAI ones
    SELECT l.* FROM listed AS l
    WHERE l.convention = (SELECT min(x.convention) FROM listed AS x WHERE x.item = l.item)
),
metadata_ids AS (
    SELECT c.item, c.doc_index, arg_min(json_transform(c.metadata, '"MAP(VARCHAR, VARCHAR)"')[k.key], k.position)
               FILTER (WHERE json_transform(c.metadata, '"MAP(VARCHAR, VARCHAR)"')[k.key] IS NOT NULL) AS id
    FROM chosen AS c
    CROSS JOIN log_id_keys AS k
    WHERE c.id IS NULL AND starts_with(ltrim(c.metadata), '{') AND json_valid(c.metadata)
    GROUP BY c.item, c.doc_index
)
SELECT
    f.file,
    f.line,
    f.trace_id                                                            AS request_id,
    f.start_time,
    c.doc_index,
    coalesce(c.id, m.id)                                                  AS chunk_id,
    TRY_CAST(c.score AS DOUBLE)                                           AS score,
    c.content,
    CASE WHEN c.id IS NOT NULL THEN 'id' WHEN m.id IS NOT NULL THEN 'metadata' ELSE 'none' END AS id_source,
    CASE WHEN json_valid(c.metadata) THEN CAST(c.metadata AS JSON) END  AS metadata
FROM chosen AS c
JOIN trace_fields AS f ON f.item_order = c.item
LEFT JOIN metadata_ids AS m ON m.item = c.item AND m.doc_index = c.doc_index
