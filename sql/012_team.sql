-- Schema version 12: a warehouse a team shares, and a history that says what computed it.
--
-- A lake (evalwh.warehouse.lake) has many writers at once: each writing transaction first bumps the one
-- row of write_ticket, so two concurrent writers conflict and the later one runs again, seeing what the
-- first committed. A file has one writer at a time and never bumps it.
--
-- A team's history spans releases, and releases change rules: every stored history row names the
-- release that computed it and its rules version (evalwh.vocabulary.RULES_VERSION, which changes only
-- when a rule does), and a run records its manifest: the content hash of each input file and the
-- settings it was loaded with. Rows stored before this step have NULL there: computed by an earlier
-- release, under rules this one cannot name.

-- One row per warehouse (there is only ever one): how many writing transactions a lake has committed.
CREATE TABLE write_ticket (
    writes  BIGINT NOT NULL
);
INSERT INTO write_ticket VALUES (0);

ALTER TABLE metrics_history ADD COLUMN evalwh VARCHAR;              -- the release that computed the row
ALTER TABLE metrics_history ADD COLUMN rules_version INTEGER;       -- the rules it computed it under
ALTER TABLE claim_status_history ADD COLUMN evalwh VARCHAR;
ALTER TABLE claim_status_history ADD COLUMN rules_version INTEGER;
-- {"evalwh": ..., "rules_version": ..., "files": {"claims.csv": "sha256:…", ...}, "settings": {...}}
ALTER TABLE runs ADD COLUMN manifest JSON;
