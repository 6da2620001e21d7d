-- OpenInference: one row per document of the trace's RETRIEVER spans, ranked by
-- ranked_documents.sql. Documents are flat attributes
-- (retrieval.documents.N.document.id / .score / .content) or a nested list.
WITH flat AS (
    SELECT
        s.file, s.line, s.trace_id, s.start_time,
        CAST(regexp_extract(k.key, '^retrieval\.documents\.(\d+)\.document\.id$', 1) AS INTEGER) AS doc_index,
        s.attrs ->> ('$."' || k.key || '"')                                                       AS chunk_id,
        TRY_CAST(s.attrs ->> ('$."retrieval.documents.' ||
            regexp_extract(k.key, '^retrieval\.documents\.(\d+)', 1) || '.document.score"') AS DOUBLE) AS score,
        s.attrs ->> ('$."retrieval.documents.' ||
            regexp_extract(k.key, '^retrieval\.documents\.(\d+)', 1) || '.document.content"')       AS content
    FROM openinference_spans AS s, unnest(json_keys(s.attrs)) AS k(key)
    WHERE regexp_matches(k.key, '^retrieval\.documents\.\d+\.document\.id$')
      AND s.attrs ->> ('$."' || k.key || '"') IS NOT NULL  -- a Parquet export has every key, mostly null
),
nested AS (
    SELECT
        s.file, s.line, s.trace_id, s.start_time,
        CAST(d.i - 1 AS INTEGER)                                                          AS doc_index,
        coalesce(d.doc -> 'document' ->> 'id', d.doc ->> '$."document.id"')               AS chunk_id,
        TRY_CAST(coalesce(d.doc -> 'document' ->> 'score', d.doc ->> '$."document.score"') AS DOUBLE) AS score,
        coalesce(d.doc -> 'document' ->> 'content', d.doc ->> '$."document.content"')     AS content
    FROM openinference_spans AS s,
         unnest(CAST(coalesce(s.attrs -> 'retrieval' -> 'documents',
                              s.record -> '$."attributes.retrieval.documents"', '[]') AS JSON[]))
             WITH ORDINALITY AS d(doc, i)
    WHERE d.doc IS NOT NULL AND json_type(d.doc) = 'OBJECT'
)
SELECT file, line, trace_id AS request_id, start_time, doc_index, chunk_id, score, content
FROM (SELECT * FROM flat UNION ALL SELECT * FROM nested) AS docs
