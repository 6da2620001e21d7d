-- Schema version 6: a content-addressed chunk corpus, large tables without key indexes,
-- bracket markers of any size, and normalised acceptable answers for the extractive baseline.
--
-- Each distinct chunk text is stored and normalised once, ever, in chunk_texts; a run
-- maps its chunk ids to text hashes in chunk_refs, and the view `chunks` (models/chunks.sql)
-- joins the two back into the chunks table's former columns. A second run over an
-- unchanged corpus adds only its id -> hash rows.
--
-- claims and citations lose their PRIMARY KEY indexes: the loader proves uniqueness before
-- it writes (claim ids are unique in the claims file; a citation's ordinal is its position in
-- the claim's list, numbered by the loader), and a run is written once, in one transaction.

-- One row per distinct chunk text in the warehouse, normalised once.
CREATE TABLE chunk_texts (
    text_hash       VARCHAR   NOT NULL,  -- md5(text)
    text            VARCHAR   NOT NULL,
    text_norm       VARCHAR   NOT NULL,  -- norm(text); the view splits it back into words(text)
    text_numbers    VARCHAR[] NOT NULL,  -- numbers(text): digit runs not after a letter or digit
    first_sentence  VARCHAR   NOT NULL,  -- first_sentence(text)
    text_uterms     VARCHAR[]            -- terms(text, 'unicode'); NULL until a run with that tokenizer uses the text
);

-- One row per chunk of a run, in file order: its id and the hash of its text.
CREATE TABLE chunk_refs (
    run_id      VARCHAR NOT NULL,
    chunk_id    VARCHAR NOT NULL,   -- unique within the run (checked at load)
    ordinal     INTEGER NOT NULL,   -- 1-based position in the chunks file
    doc_id      VARCHAR,
    text_hash   VARCHAR NOT NULL    -- chunk_texts.text_hash
);

-- One row per chunk text that was a run's rank-1 retrieval for a question with acceptable
-- answers: the SQuAD-normalised first sentence the extractive baseline searches, computed
-- for those texts only.
CREATE TABLE sentence_norms (
    text_hash      VARCHAR NOT NULL,
    sentence_norm  VARCHAR NOT NULL   -- squad_normalize(first_sentence(text))
);

INSERT INTO chunk_texts
SELECT
    md5(c.text),
    any_value(c.text),
    any_value(c.text_norm),
    any_value(coalesce(c.text_numbers, numbers(c.text))),
    any_value(coalesce(c.first_sentence, first_sentence(c.text))),
    any_value(CASE WHEN json_extract_string(r.params, '$.tokenizer') = 'unicode' THEN c.text_terms END)
FROM chunks AS c LEFT JOIN runs AS r ON r.run_id = c.run_id
GROUP BY md5(c.text);

INSERT INTO chunk_refs SELECT run_id, chunk_id, ordinal, doc_id, md5(text) FROM chunks ORDER BY run_id, ordinal;

INSERT INTO sentence_norms
SELECT md5(text), any_value(squad_normalize(coalesce(first_sentence, first_sentence(text)))) FROM chunks GROUP BY md5(text);

DROP TABLE chunks;

CREATE TABLE claims_v6 (
    run_id       VARCHAR   NOT NULL,
    claim_id     VARCHAR   NOT NULL,   -- unique within the run (checked at load)
    ordinal      INTEGER   NOT NULL,
    question_id  VARCHAR,
    text         VARCHAR   NOT NULL,
    quote        VARCHAR   NOT NULL,   -- '' when the claim carries no quote
    quote_norm   VARCHAR   NOT NULL,   -- norm(quote)
    text_digits  VARCHAR[] NOT NULL,   -- digit runs of text, Python's \d+
    quote_digits VARCHAR[] NOT NULL    -- digit runs of quote, Python's \d+
);
INSERT INTO claims_v6 SELECT run_id, claim_id, ordinal, question_id, text, quote, quote_norm, text_digits, quote_digits
FROM claims ORDER BY run_id, ordinal;
DROP TABLE claims;
ALTER TABLE claims_v6 RENAME TO claims;

CREATE TABLE citations_v6 (
    run_id      VARCHAR NOT NULL,
    claim_id    VARCHAR NOT NULL,
    chunk_id    VARCHAR NOT NULL,
    ordinal     INTEGER NOT NULL     -- 1-based position in the claim's list, numbered at load
);
INSERT INTO citations_v6 SELECT run_id, claim_id, chunk_id, ordinal FROM citations ORDER BY run_id, claim_id, ordinal;
DROP TABLE citations;
ALTER TABLE citations_v6 RENAME TO citations;

-- A bracket marker is a citation number of any size: kept as its decimal text.
ALTER TABLE response_sentences ALTER markers TYPE VARCHAR[];

-- squad_normalize of each acceptable answer: the extractive baseline looks for it as a substring.
ALTER TABLE questions ADD COLUMN acceptable_norms VARCHAR[];
UPDATE questions SET acceptable_norms = list_transform(acceptable_answers, lambda a: squad_normalize(a));

-- The log tables lose their PRIMARY KEY indexes too: an import skips a request whose
-- (source, request_id) is already in the warehouse, and rejects an id used twice within it.
CREATE TABLE log_requests_v6 (
    log_batch_id    VARCHAR   NOT NULL,
    source          VARCHAR   NOT NULL,
    request_id      VARCHAR   NOT NULL,   -- unique within its source (checked at import)
    session_id      VARCHAR,
    ts              TIMESTAMP,            -- UTC
    question        VARCHAR,
    answer          VARCHAR,
    model           VARCHAR,
    finish_reason   VARCHAR,
    refused         BOOLEAN,
    metadata        JSON,
    raw             JSON      NOT NULL,   -- the record as logged, so a source can be re-parsed
    question_words  VARCHAR[] NOT NULL,   -- terms(question, 'ascii'), the chapter's words
    question_uterms VARCHAR[] NOT NULL    -- terms(question, 'unicode')
);
INSERT INTO log_requests_v6 SELECT * FROM log_requests;
DROP TABLE log_requests;
ALTER TABLE log_requests_v6 RENAME TO log_requests;

CREATE TABLE log_retrievals_v6 (
    log_batch_id  VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    request_id    VARCHAR NOT NULL,
    rank          INTEGER NOT NULL,       -- 1-based
    chunk_id      VARCHAR,
    score         DOUBLE,
    content       VARCHAR,
    id_source     VARCHAR NOT NULL        -- how chunk_id was obtained: id, metadata, none
);
INSERT INTO log_retrievals_v6 SELECT * FROM log_retrievals;
DROP TABLE log_retrievals;
ALTER TABLE log_retrievals_v6 RENAME TO log_retrievals;

CREATE TABLE log_citations_v6 (
    log_batch_id  VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    request_id    VARCHAR NOT NULL,
    position      INTEGER NOT NULL,       -- 1-based
    chunk_id      VARCHAR,                -- as resolved
    quote         VARCHAR,                -- the quote or cited text, when the source has one
    quote_norm    VARCHAR,                -- norm(quote)
    resolution    VARCHAR NOT NULL        -- resolved, ambiguous, unresolved, out_of_range
);
INSERT INTO log_citations_v6 SELECT * FROM log_citations;
DROP TABLE log_citations;
ALTER TABLE log_citations_v6 RENAME TO log_citations;
