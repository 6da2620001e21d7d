-- Schema version 1: the version log and the base tables.
-- Every base table carries run_id; a run is one load and is never edited in place.

-- One row per schema version applied to this file, newest last.
CREATE TABLE schema_version (
    version     INTEGER   PRIMARY KEY,
    applied_at  TIMESTAMP NOT NULL,
    evalwh      VARCHAR   NOT NULL   -- the evalwh release that applied it
);

-- One row per run (one load of a dataset).
CREATE TABLE runs (
    run_id      VARCHAR   PRIMARY KEY,
    created_at  TIMESTAMP NOT NULL,  -- UTC; strictly increasing, so "latest" is well defined
    label       VARCHAR,
    source      VARCHAR   NOT NULL,  -- the directory or bundled seed it was loaded from
    params      JSON      NOT NULL   -- {"thresholds": [...], "stopwords": [...], "stopwords_source": ...}
);

-- One row per chunk of the run's chunk store, in file order.
CREATE TABLE chunks (
    run_id      VARCHAR   NOT NULL,
    chunk_id    VARCHAR   NOT NULL,
    ordinal     INTEGER   NOT NULL,  -- 1-based position in the chunks file
    doc_id      VARCHAR,
    text        VARCHAR   NOT NULL,
    text_words  VARCHAR[] NOT NULL,  -- words(text)
    text_norm   VARCHAR   NOT NULL,  -- norm(text)
    PRIMARY KEY (run_id, chunk_id)
);

-- One row per drafted claim, in file order.
CREATE TABLE claims (
    run_id       VARCHAR   NOT NULL,
    claim_id     VARCHAR   NOT NULL,
    ordinal      INTEGER   NOT NULL,
    question_id  VARCHAR,
    text         VARCHAR   NOT NULL,
    quote        VARCHAR   NOT NULL,  -- '' when the claim carries no quote
    quote_norm   VARCHAR   NOT NULL,  -- norm(quote)
    text_digits  VARCHAR[] NOT NULL,  -- digit runs of text, Python's \d+
    quote_digits VARCHAR[] NOT NULL,  -- digit runs of quote, Python's \d+
    PRIMARY KEY (run_id, claim_id)
);

-- One row per (claim, cited id), in the order the claim lists them.
-- The chunk id is not checked against chunks: a citation of an unknown chunk is DANGLING.
CREATE TABLE citations (
    run_id      VARCHAR NOT NULL,
    claim_id    VARCHAR NOT NULL,
    chunk_id    VARCHAR NOT NULL,
    ordinal     INTEGER NOT NULL,    -- 1-based position in the claim's list
    PRIMARY KEY (run_id, claim_id, ordinal)
);

-- One row per test question, in file order.
CREATE TABLE questions (
    run_id          VARCHAR   NOT NULL,
    question_id     VARCHAR   NOT NULL,
    ordinal         INTEGER   NOT NULL,
    question        VARCHAR   NOT NULL,
    expected        VARCHAR   NOT NULL,  -- answer | refuse
    gold            VARCHAR   NOT NULL,  -- '' when there is no gold text
    gold_norm       VARCHAR   NOT NULL,  -- norm(gold)
    question_words  VARCHAR[] NOT NULL,  -- words(question)
    PRIMARY KEY (run_id, question_id)
);
