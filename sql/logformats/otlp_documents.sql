-- OTLP JSON: one row per document of gen_ai.retrieval.documents, a JSON string or a
-- structured array of {id, score} key-value lists, ranked by ranked_documents.sql.
WITH attrs AS (
    SELECT * FROM otlp_spans WHERE key = 'gen_ai.retrieval.documents'
),
from_string AS (
    SELECT a.file, a.line, a.trace_id, a.start_time, CAST(d.i AS INTEGER) AS doc_index,
           d.doc ->> 'id' AS chunk_id, TRY_CAST(d.doc ->> 'score' AS DOUBLE) AS score, d.doc ->> 'content' AS content
    FROM attrs AS a, unnest(CAST(json(a.text_value) AS JSON[])) WITH ORDINALITY AS d(doc, i)
    WHERE a.text_value IS NOT NULL AND json_valid(a.text_value)
),
structured_values AS (
    SELECT a.file, a.line, a.trace_id, a.start_time, CAST(d.i AS INTEGER) AS doc_index, kv.x AS kv
    FROM attrs AS a,
         unnest(CAST(coalesce(a.json_value -> 'values', '[]') AS JSON[])) WITH ORDINALITY AS d(doc, i),
         unnest(CAST(coalesce(d.doc -> 'kvlistValue' -> 'values', '[]') AS JSON[])) AS kv(x)
),
from_structure AS (
    SELECT file, line, trace_id, start_time, doc_index,
           any_value(coalesce(kv -> 'value' ->> 'stringValue', kv -> 'value' ->> 'intValue'))
               FILTER (WHERE kv ->> 'key' = 'id')                                       AS chunk_id,
           TRY_CAST(any_value(coalesce(kv -> 'value' ->> 'doubleValue', kv -> 'value' ->> 'intValue'))
               FILTER (WHERE kv ->> 'key' = 'score') AS DOUBLE)                         AS score,
           any_value(kv -> 'value' ->> 'stringValue') FILTER (WHERE kv ->> 'key' = 'content') AS content
    FROM structured_values
    GROUP BY file, line, trace_id, start_time, doc_index
)
SELECT file, line, trace_id AS request_id, start_time, doc_index, chunk_id, score, content
FROM (SELECT * FROM from_string UNION ALL SELECT * FROM from_structure) AS docs
