-- Schema version 2: materialised history of each run's metrics and claim statuses.
-- `evalwh materialize` fills them from the views, one run at a time; a run with rows in
-- metrics_history is materialised. Replacing a run clears its history rows.

-- One row per (run, metric): the run's metric values (run_metrics_long) when materialised.
CREATE TABLE metrics_history (
    run_id           VARCHAR   NOT NULL,
    position         INTEGER   NOT NULL,  -- display order
    metric           VARCHAR   NOT NULL,
    value            DOUBLE,              -- NULL where the metric is undefined (a share of nothing)
    materialized_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, metric)
);

-- One row per (run, claim): the claim's status (claim_status) when materialised.
CREATE TABLE claim_status_history (
    run_id           VARCHAR   NOT NULL,
    claim_id         VARCHAR   NOT NULL,
    ordinal          INTEGER   NOT NULL,
    status           VARCHAR   NOT NULL,
    cited_ids        VARCHAR[] NOT NULL,
    materialized_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (run_id, claim_id)
);
