-- Schema version 8: the production-log tables compressed column by column. Each column takes
-- DuckDB's own choice (dictionary, FSST, bit packing: a batch id, a word list or a score
-- compresses far better that way than with zstd), except the texts that are long and each
-- different: a request's raw record, and a citation's quote and its normal form, with zstd.
-- The tables are copied once into their new form; columns and rows are unchanged.

-- One row per logged request.
CREATE TABLE log_requests_v8 (
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
    raw             JSON      USING COMPRESSION zstd NOT NULL,   -- the record as logged
    question_words  VARCHAR[] NOT NULL,   -- terms(question, 'ascii'), the chapter's words
    question_uterms VARCHAR[] NOT NULL    -- terms(question, 'unicode')
);
INSERT INTO log_requests_v8 SELECT * FROM log_requests;
DROP TABLE log_requests;
ALTER TABLE log_requests_v8 RENAME TO log_requests;

-- One row per retrieved chunk of a logged request.
CREATE TABLE log_retrievals_v8 (
    log_batch_id  VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    request_id    VARCHAR NOT NULL,
    rank          INTEGER NOT NULL,       -- 1-based
    chunk_id      VARCHAR,
    score         DOUBLE,
    content       VARCHAR,
    id_source     VARCHAR NOT NULL        -- how chunk_id was obtained: id, metadata, none
);
INSERT INTO log_retrievals_v8 SELECT * FROM log_retrievals;
DROP TABLE log_retrievals;
ALTER TABLE log_retrievals_v8 RENAME TO log_retrievals;

-- One row per citation of a logged answer.
CREATE TABLE log_citations_v8 (
    log_batch_id  VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    request_id    VARCHAR NOT NULL,
    position      INTEGER NOT NULL,       -- 1-based
    chunk_id      VARCHAR,                -- as resolved
    quote         VARCHAR USING COMPRESSION zstd,   -- the quote or cited text, when the source has one
    quote_norm    VARCHAR USING COMPRESSION zstd,   -- norm(quote)
    resolution    VARCHAR NOT NULL        -- resolved, ambiguous, unresolved, out_of_range
);
INSERT INTO log_citations_v8 SELECT * FROM log_citations;
DROP TABLE log_citations;
ALTER TABLE log_citations_v8 RENAME TO log_citations;
