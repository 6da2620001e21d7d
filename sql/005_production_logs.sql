-- Schema version 5: production logs, kept apart from runs and appended in batches.
-- A request is identified by (source, request_id): importing the same file twice adds nothing.

-- One row per import: which format, which files, when, and how much it added or rejected.
CREATE TABLE log_batches (
    log_batch_id  VARCHAR   PRIMARY KEY,
    source        VARCHAR   NOT NULL,   -- the log format: evalwh, openinference, otlp, anthropic, ragas
    files         VARCHAR[] NOT NULL,
    loaded_at     TIMESTAMP NOT NULL,
    requests      INTEGER   NOT NULL,   -- new requests added (already known ones are skipped)
    rejects       INTEGER   NOT NULL    -- malformed records set aside with --skip-bad
);

-- One row per production request.
CREATE TABLE log_requests (
    log_batch_id    VARCHAR   NOT NULL,
    source          VARCHAR   NOT NULL,
    request_id      VARCHAR   NOT NULL,
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
    question_uterms VARCHAR[] NOT NULL,   -- terms(question, 'unicode')
    PRIMARY KEY (source, request_id)
);

-- One row per (request, retrieved chunk), in rank order.
CREATE TABLE log_retrievals (
    log_batch_id  VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    request_id    VARCHAR NOT NULL,
    rank          INTEGER NOT NULL,       -- 1-based
    chunk_id      VARCHAR,
    score         DOUBLE,
    content       VARCHAR,
    id_source     VARCHAR NOT NULL,       -- how chunk_id was obtained: id, metadata, none
    PRIMARY KEY (source, request_id, rank)
);

-- One row per (request, citation), in answer order.
CREATE TABLE log_citations (
    log_batch_id  VARCHAR NOT NULL,
    source        VARCHAR NOT NULL,
    request_id    VARCHAR NOT NULL,
    position      INTEGER NOT NULL,       -- 1-based
    chunk_id      VARCHAR,                -- as resolved
    quote         VARCHAR,                -- the quote or cited text, when the source has one
    quote_norm    VARCHAR,                -- norm(quote)
    resolution    VARCHAR NOT NULL,       -- resolved, ambiguous, unresolved, out_of_range
    PRIMARY KEY (source, request_id, position)
);

-- One row per malformed record set aside by an import with --skip-bad.
CREATE TABLE log_rejects (
    log_batch_id  VARCHAR NOT NULL,
    file          VARCHAR NOT NULL,
    line          BIGINT  NOT NULL,
    error         VARCHAR NOT NULL,
    raw           VARCHAR
);
