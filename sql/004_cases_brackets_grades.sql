-- Schema version 4: three-axis case scoring, bracket-cited answers, the refusal phrase and
-- judge-versus-human grades.

-- A structured response may say directly that it refused.
ALTER TABLE responses ADD COLUMN refused BOOLEAN;   -- NULL unless the responses file has a refused column

-- One row per sentence of a bracket-format answer: prose with [n] markers, n numbering the
-- passages shown to the model (1-based, in retrieval rank order).
CREATE TABLE response_sentences (
    run_id       VARCHAR   NOT NULL,
    question_id  VARCHAR   NOT NULL,
    sentence_no  INTEGER   NOT NULL,   -- 1-based
    sentence     VARCHAR   NOT NULL,   -- split at '.', '!' or '?' followed by white space
    markers      INTEGER[] NOT NULL,   -- the [n] markers in the sentence, in order
    word_count   INTEGER   NOT NULL,   -- white-space separated words
    numbers      VARCHAR[] NOT NULL,   -- numbers(sentence) with the markers removed
    PRIMARY KEY (run_id, question_id, sentence_no)
);

-- One row per (item, grader): a grade by a person ('human') or by a named judge.
CREATE TABLE grades (
    run_id   VARCHAR NOT NULL,
    item_id  VARCHAR NOT NULL,
    grader   VARCHAR NOT NULL,
    label    VARCHAR NOT NULL,          -- compared after trimming and lower-casing
    ordinal  INTEGER NOT NULL,
    PRIMARY KEY (run_id, item_id, grader)
);
