-- Schema version 9: production logs as their producers write them.
--
-- A retrieved document keeps its metadata and a citation where it points, as their log gave them; a trace whose spans arrive over several
-- imports waits in log_pending until its root span comes.
ALTER TABLE log_retrievals ADD COLUMN metadata JSON;  -- the retrieved document's metadata as logged (OpenInference's document.metadata, an Anthropic passage's title and context); NULL where the log gives none
ALTER TABLE log_citations ADD COLUMN location JSON;  -- the citation as logged (type and indexes: Anthropic's char, page, block and search-result locations, a provider citation); NULL for [n] markers and evalwh's own

-- One row per record holding spans of a trace that arrived without its root span. The import that
-- brings the root reads these records again and completes the request; its rows then go.
CREATE TABLE log_pending (
    log_batch_id  VARCHAR   NOT NULL,   -- the import that read the record
    source        VARCHAR   NOT NULL,   -- otlp or openinference
    file          VARCHAR   NOT NULL,
    line          BIGINT    NOT NULL,
    record        JSON      NOT NULL,
    trace_ids     VARCHAR[] NOT NULL    -- the traces of the record still without their root span
);
