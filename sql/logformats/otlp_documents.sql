-- OTLP JSON: one row per document of gen_ai.retrieval.documents, a JSON string or a
-- structured array of {id, score} key-value lists, ranked by ranked_documents.sql.
WITH attrs AS (
    SELECT * FROM otlp_spans WHERE key = 'gen_ai.retrieval.documents'
),
string_lists AS (
    SELECT file, line, trace_id, start_time, json_transform(text_value, '["JSON"]') AS docs
    FROM attrs
    WHERE json_valid(text_value)
),
from_string_docs AS (
    -- each document with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, trace_id, start_time,
           unnest(list_transform(range(1, array_length(docs) + 1),
                                 lambda i: struct_pack(doc := docs[i], i := i))) AS d
    FROM string_lists
),
from_string AS (
    SELECT file, line, trace_id, start_time, CAST(d.i AS INTEGER) AS doc_index,
           json_extract_string(d.doc, '$.id') AS chunk_id,
           TRY_CAST(json_extract_string(d.doc, '$.score') AS DOUBLE) AS score,
           json_extract_string(d.doc, '$.content') AS content
    FROM from_string_docs
),
structured_lists AS (
    SELECT file, line, trace_id, start_time, json_transform(json_value, '{"values": ["JSON"]}')."values" AS docs
    FROM attrs
),
structured_docs AS (
    SELECT file, line, trace_id, start_time,
           unnest(list_transform(range(1, array_length(docs) + 1),
                                 lambda i: struct_pack(doc := docs[i], i := i))) AS d
    FROM structured_lists
),
kv_lists AS (
    SELECT file, line, trace_id, start_time, CAST(d.i AS INTEGER) AS doc_index,
           json_transform(d.doc, '{"kvlistValue": {"values": ["JSON"]}}').kvlistValue."values" AS kvs
    FROM structured_docs
),
structured_values AS (
    SELECT file, line, trace_id, start_time, doc_index,
           unnest(list_transform(range(1, array_length(kvs) + 1),
                                 lambda i: struct_pack(kv := kvs[i], i := i))) AS v
    FROM kv_lists
),
fields AS (
    SELECT file, line, trace_id, start_time, doc_index, v.i AS kv_no,
           json_extract_string(v.kv, '$.key') AS key,
           coalesce(json_extract_string(v.kv, '$.value.stringValue'), json_extract_string(v.kv, '$.value.intValue'))
               AS id_value,
           coalesce(json_extract_string(v.kv, '$.value.doubleValue'), json_extract_string(v.kv, '$.value.intValue'))
               AS score_value,
           json_extract_string(v.kv, '$.value.stringValue') AS content_value
    FROM structured_values
),
from_structure AS (
    SELECT file, line, trace_id, start_time, doc_index,
           arg_min(id_value, kv_no) FILTER (WHERE key = 'id' AND id_value IS NOT NULL) AS chunk_id,
           TRY_CAST(arg_min(score_value, kv_no) FILTER (WHERE key = 'score' AND score_value IS NOT NULL) AS DOUBLE)
               AS score,
           arg_min(content_value, kv_no) FILTER (WHERE key = 'content' AND content_value IS NOT NULL) AS content
    FROM fields
    GROUP BY file, line, trace_id, start_time, doc_index
)
SELECT file, line, trace_id AS request_id, start_time, doc_index, chunk_id, score, content
FROM (SELECT * FROM from_string UNION ALL SELECT * FROM from_structure) AS docs
