-- Schema version 3: retrieve-then-read evaluation.
-- Adds tokenizer-aware terms and numbers to chunks and questions, the gold chunk and
-- acceptable answers to questions, and the tables of what was retrieved and what the
-- reader wrote. Existing rows are filled as a run loaded with the defaults would be
-- (ascii tokenizer, so terms are the words already stored); the UDFs are registered on
-- every evalwh connection that migrates.

ALTER TABLE chunks ADD COLUMN text_terms VARCHAR[];            -- terms(text, run tokenizer), for retrieval
ALTER TABLE chunks ADD COLUMN text_numbers VARCHAR[];          -- numbers(text): digit runs not after a letter or digit
ALTER TABLE chunks ADD COLUMN first_sentence VARCHAR;          -- first_sentence(text), the extractive baseline
ALTER TABLE chunks ADD COLUMN first_sentence_tokens VARCHAR[]; -- squad_tokens(first_sentence)
UPDATE chunks SET
    text_terms = text_words,
    text_numbers = numbers(text),
    first_sentence = first_sentence(text),
    first_sentence_tokens = squad_tokens(first_sentence(text));

ALTER TABLE questions ADD COLUMN question_terms VARCHAR[];     -- terms(question, run tokenizer)
ALTER TABLE questions ADD COLUMN gold_chunk_id VARCHAR;        -- the passage that answers it or contradicts its premise
ALTER TABLE questions ADD COLUMN acceptable_answers VARCHAR[]; -- reference answers, variants split on '|'
ALTER TABLE questions ADD COLUMN acceptable_tokens VARCHAR[][];-- squad_tokens of each acceptable answer
UPDATE questions SET
    question_terms = question_words,
    acceptable_answers = [],
    acceptable_tokens = [];

-- One row per (question, retrieved chunk): what the evaluated system retrieved, or what the
-- built-in retriever (runs.params.retriever) found when the run has no retrievals file.
CREATE TABLE retrievals (
    run_id       VARCHAR NOT NULL,
    question_id  VARCHAR NOT NULL,
    chunk_id     VARCHAR NOT NULL,
    rank         INTEGER NOT NULL,   -- 1-based
    score        DOUBLE,
    PRIMARY KEY (run_id, question_id, rank)
);

-- One row per question the reader answered: its raw output and the strict parse of it.
CREATE TABLE responses (
    run_id          VARCHAR   NOT NULL,
    question_id     VARCHAR   NOT NULL,
    ordinal         INTEGER   NOT NULL,
    output          VARCHAR   NOT NULL,  -- as written, never rewritten
    parse_ok        BOOLEAN   NOT NULL,  -- exactly "Answer: <text>" then "Sources: <ids>" after trimming
    answer          VARCHAR,             -- the answer text; NULL on a parse failure
    sources         VARCHAR[] NOT NULL,  -- cited ids; [] for "Sources: none" or a parse failure
    answer_tokens   VARCHAR[] NOT NULL,  -- squad_tokens(answer); [] on a parse failure
    answer_numbers  VARCHAR[] NOT NULL,  -- numbers(answer) after removing the cited ids from it
    PRIMARY KEY (run_id, question_id)
);
