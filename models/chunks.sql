-- One row per chunk of a run, in file order: the run's chunk ids (chunk_refs) joined with
-- the content-addressed corpus (chunk_texts), where each distinct text was normalised once.
--   text_words, text_norm  words(text) and norm(text); no word holds a space, so the words
--                          are norm(text) split at its single spaces
--   text_terms             terms(text) by the run's tokenizer (ascii terms are the words)
--   text_numbers           numbers(text); first_sentence  first_sentence(text)
SELECT
    r.run_id,
    r.chunk_id,
    r.ordinal,
    r.doc_id,
    t.text,
    CASE WHEN t.text_norm = '' THEN CAST([] AS VARCHAR[]) ELSE string_split(t.text_norm, ' ') END AS text_words,
    t.text_norm,
    CASE
        WHEN s.tokenizer = 'unicode' THEN t.text_uterms
        WHEN t.text_norm = '' THEN CAST([] AS VARCHAR[])
        ELSE string_split(t.text_norm, ' ')
    END AS text_terms,
    t.text_numbers,
    t.first_sentence
FROM chunk_refs AS r
JOIN chunk_texts AS t ON t.text_hash = r.text_hash
LEFT JOIN run_settings AS s ON s.run_id = r.run_id
