-- OpenInference: one row per document of the trace's RETRIEVER spans, ranked by
-- ranked_documents.sql. Documents are flat attributes
-- (retrieval.documents.N.document.id / .score / .content) or a nested list.
WITH attribute_maps AS (
    SELECT file, line, trace_id, start_time, json_transform(attrs, '"MAP(VARCHAR, VARCHAR)"') AS attributes
    FROM openinference_spans
),
attribute_keys AS (
    SELECT file, line, trace_id, start_time, attributes, unnest(map_keys(attributes)) AS key
    FROM attribute_maps
),
flat_ids AS (
    SELECT file, line, trace_id, start_time, attributes, key,
           regexp_extract(key, '^retrieval\.documents\.(\d+)\.document\.id\z', 1) AS n
    FROM attribute_keys
),
flat AS (
    SELECT
        file, line, trace_id, start_time,
        CAST(n AS INTEGER)                                                              AS doc_index,
        attributes[key]                                                                 AS chunk_id,
        TRY_CAST(attributes['retrieval.documents.' || n || '.document.score'] AS DOUBLE) AS score,
        attributes['retrieval.documents.' || n || '.document.content']                  AS content
    FROM flat_ids
    WHERE n <> '' AND attributes[key] IS NOT NULL  -- a Parquet export has every key, mostly null
),
nested_lists AS (
    SELECT file, line, trace_id, start_time,
           json_transform_strict(coalesce(json_extract(attrs, '$.retrieval.documents'),
                                          json_extract(record, '$."attributes.retrieval.documents"')),
                                 '["JSON"]') AS docs
    FROM openinference_spans
),
nested_docs AS (
    -- each document with its 1-based position, as one struct (one unnest, which Spark also allows)
    SELECT file, line, trace_id, start_time,
           unnest(list_transform(range(1, array_length(docs) + 1),
                                 lambda i: struct_pack(doc := docs[i], i := i))) AS d
    FROM nested_lists
),
nested AS (
    SELECT
        file, line, trace_id, start_time,
        CAST(d.i - 1 AS INTEGER)                                                        AS doc_index,
        coalesce(json_extract_string(d.doc, '$.document.id'), json_extract_string(d.doc, '$."document.id"'))
                                                                                        AS chunk_id,
        TRY_CAST(coalesce(json_extract_string(d.doc, '$.document.score'),
                          json_extract_string(d.doc, '$."document.score"')) AS DOUBLE)  AS score,
        coalesce(json_extract_string(d.doc, '$.document.content'),
                 json_extract_string(d.doc, '$."document.content"'))                    AS content
    FROM nested_docs
    WHERE starts_with(d.doc, '{')  -- an object, not a string or a number
)
SELECT file, line, trace_id AS request_id, start_time, doc_index, chunk_id, score, content
FROM (SELECT * FROM flat UNION ALL SELECT * FROM nested) AS docs
