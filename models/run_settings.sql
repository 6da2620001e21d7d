-- One row per run: its retrieval and reader settings, read from runs.params.
--   retriever         overlap | tfidf: the built-in retriever (used when no retrievals file was loaded)
--   top_k             how many chunks a question retrieves; recall is counted at this k
--   tokenizer         ascii | unicode: how chunk and question terms were cut at load
--   abstain_marker    an answer starting with it is a refusal
--   premise_marker    an answer starting with it flags a false premise
--   reader_format     two_line | bracket | structured: how responses were read
--   refusal_phrase    a response whose answer is exactly this phrase is a refusal
--   retrieval_source  file | builtin:<retriever>
SELECT
    run_id,
    json_extract_string(params, '$.retriever')                      AS retriever,
    CAST(json_extract(params, '$.top_k') AS INTEGER)                AS top_k,
    json_extract_string(params, '$.tokenizer')                      AS tokenizer,
    json_extract_string(params, '$.abstain_marker')                 AS abstain_marker,
    json_extract_string(params, '$.premise_marker')                 AS premise_marker,
    json_extract_string(params, '$.format')                         AS reader_format,
    json_extract_string(params, '$.refusal_phrase')                 AS refusal_phrase,
    json_extract_string(params, '$.retrieval_source')               AS retrieval_source
FROM runs
