"""Run history: materialising the metric views, and reading a run's metrics and statuses.

A load stores its run's headline metrics (run_metrics_long) in metrics_history, in a
transaction right after the run's (``store_metrics``), so reports, ``runs`` and the CI gate
read them instead of recomputing every view. ``materialize`` copies what is still missing into the history
tables, in one transaction: the headline metrics of runs loaded without them (or before
loads stored them) and every run's claim statuses (claim_status); ``full_refresh``
recomputes all of it. Readers take a run's numbers from history when they are there and
from the live views otherwise, so the answer is the same.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from evalwh import __version__
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Location
from evalwh.output.terminal import progress
from evalwh.sqltext import sql_literal
from evalwh.vocabulary import RULES_VERSION
from evalwh.warehouse.connection import open_warehouse, scalar, write_transaction

HISTORY_TABLES: tuple[str, ...] = ("metrics_history", "claim_status_history")


@dataclass(frozen=True)
class Rescored:
    """A stored history value that this release computes otherwise (``materialize --rescore``)."""

    run_id: str
    kind: str  # metric | status
    item: str  # the metric's name, or the claim's id
    stored: str | None  # the value as stored (a metric's as text, exactly)
    now: str | None  # the value this release computes
    computed_by: str  # why they differ: the release and rules version that stored the old value


@dataclass(frozen=True)
class MaterializeResult:
    """Which runs a materialize wrote, and with --rescore what changed."""

    runs: list[str]
    full_refresh: bool
    rescored: list[Rescored] = field(default_factory=list)
    rescored_runs: list[str] = field(default_factory=list)


def store_metrics(con: duckdb.DuckDBPyConnection, run_id: str, now: dt.datetime) -> None:
    """Write the run's headline metrics (run_metrics_long) into metrics_history, in the caller's transaction."""
    con.execute(
        "INSERT INTO metrics_history BY NAME SELECT run_id, position, metric, value, ? AS materialized_at, "
        "? AS evalwh, ? AS rules_version FROM run_metrics_long WHERE run_id = ?",
        [now, __version__, RULES_VERSION, run_id],
    )


def store_statuses(con: duckdb.DuckDBPyConnection, run_id: str, now: dt.datetime) -> None:
    """Write the run's claim statuses (claim_status) into claim_status_history, in the caller's transaction."""
    con.execute(
        "INSERT INTO claim_status_history BY NAME SELECT run_id, claim_id, ordinal, status, cited_ids, "
        "? AS materialized_at, ? AS evalwh, ? AS rules_version FROM claim_status WHERE run_id = ?",
        [now, __version__, RULES_VERSION, run_id],
    )


def materialize(db: Location, *, full_refresh: bool = False, rescore: bool = False,
                invocation: Invocation = QUIET) -> MaterializeResult:
    """Write what history lacks, run by run: the headline metrics of runs without them and the claim
    statuses of runs with claims and none stored (everything of every run with ``full_refresh``).

    With ``rescore``, every stored row computed by another release or under other rules is computed
    again by this one, and each value that changed is listed with the release and rules that stored it.
    One transaction; in a lake, run again from the start if a concurrent writer commits first.
    """
    with open_warehouse(db, write=True, create=False, invocation=invocation, udfs=False) as con:  # nothing to materialise without a warehouse
        def work() -> MaterializeResult:
            if full_refresh:
                for table in HISTORY_TABLES:
                    con.execute(f"DELETE FROM {table}")
            changes, stale = _rescore(con) if rescore and not full_refresh else ([], [])
            pending = con.execute(
                "SELECT run_id, run_id NOT IN (SELECT run_id FROM metrics_history), "
                "run_id NOT IN (SELECT run_id FROM claim_status_history) AND run_id IN (SELECT run_id FROM claims) "
                "FROM runs ORDER BY created_at"
            ).fetchall()
            pending = [(run_id, metrics, statuses) for run_id, metrics, statuses in pending if metrics or statuses]
            now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
            with progress("materialize", len(pending), enabled=invocation.progress) as advance:
                for run_id, metrics, statuses in pending:
                    if metrics:
                        store_metrics(con, run_id, now)
                    if statuses:
                        store_statuses(con, run_id, now)
                    advance(1)
            return MaterializeResult(runs=[run_id for run_id, _, _ in pending if run_id not in stale],
                                     full_refresh=full_refresh, rescored=changes, rescored_runs=stale)

        return write_transaction(con, db, work, invocation)


STALE = "(evalwh IS DISTINCT FROM $release OR rules_version IS DISTINCT FROM $rules)"


def _rescore(con: duckdb.DuckDBPyConnection) -> tuple[list[Rescored], list[str]]:
    """The stored values this release computes otherwise, and the runs holding rows another release or
    other rules computed; those runs' history rows are deleted, for the caller to store again."""
    params = {"release": __version__, "rules": RULES_VERSION}
    stale = [row[0] for row in con.execute(
        f"SELECT run_id FROM metrics_history WHERE {STALE} UNION SELECT run_id FROM claim_status_history "
        f"WHERE {STALE} ORDER BY run_id", params).fetchall()]
    if not stale:
        return [], []
    by = ("concat('evalwh ', coalesce(s.evalwh, 'before 0.1 (unrecorded)'), ', rules ', "
          "coalesce(CAST(s.rules_version AS VARCHAR), 'unrecorded'))")
    metrics = con.execute(
        f"""SELECT run_id, 'metric', metric, CAST(s.value AS VARCHAR), CAST(n.value AS VARCHAR), {by}
        FROM (SELECT * FROM metrics_history WHERE list_contains($stale, run_id)) AS s
        FULL JOIN (SELECT * FROM run_metrics_long WHERE list_contains($stale, run_id)) AS n USING (run_id, metric)
        WHERE s.value IS DISTINCT FROM n.value OR s.run_id IS NULL OR n.run_id IS NULL
        ORDER BY run_id, coalesce(n.position, s.position)""", {"stale": stale}).fetchall()
    statuses = con.execute(
        f"""SELECT s.run_id, 'status', s.claim_id, s.status, n.status, {by}
        FROM claim_status_history AS s JOIN claim_status AS n USING (run_id, claim_id)
        WHERE list_contains($stale, s.run_id) AND s.status IS DISTINCT FROM n.status
        ORDER BY s.run_id, s.ordinal""", {"stale": stale}).fetchall()
    for table in HISTORY_TABLES:
        con.execute(f"DELETE FROM {table} WHERE list_contains($stale, run_id)", {"stale": stale})
    return [Rescored(*row) for row in metrics + statuses], stale


def metrics_stored(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    """Whether the run's headline metrics are in metrics_history."""
    return bool(scalar(con, "SELECT EXISTS (SELECT 1 FROM metrics_history WHERE run_id = ?)", [run_id]))


def metric_values(con: duckdb.DuckDBPyConnection, run_id: str, logs: bool = True) -> dict[str, float | None]:
    """The run's metrics by name, in display order: from history when stored there, else live;
    then (unless ``logs`` is False) the production-log metrics (log_metrics), which are always live."""
    source = "metrics_history" if metrics_stored(con, run_id) else "run_metrics_long"
    log_rows = "UNION ALL SELECT position, metric, value FROM log_metrics WHERE run_id = $r" if logs else ""
    rows = con.execute(
        f"SELECT metric, value FROM (SELECT position, metric, value FROM {source} WHERE run_id = $r "
        f"{log_rows}) ORDER BY position",
        {"r": run_id},
    ).fetchall()
    return {metric: value for metric, value in rows}


def metric_values_of_runs(
    con: duckdb.DuckDBPyConnection, run_ids: Sequence[str], metrics: Sequence[str]
) -> dict[str, dict[str, float | None]]:
    """Run id -> its ``metric_values`` (without the production-log metrics), holding at least ``metrics``
    (a metric history lacks reads as absent): those of every stored run in one read of metrics_history,
    and each other run's live, one run at a time (a filter on one run_id reaches the views' tables; a
    filter over a list of runs does not). Two plain reads cost a small warehouse less than one query
    joining the runs with their history."""
    listed = ", ".join(map(sql_literal, metrics))
    stored: dict[str, dict[str, float | None]] = {}
    for run_id, metric, value in con.execute(
        f"SELECT run_id, metric, value FROM metrics_history WHERE metric IN ({listed})"
    ).fetchall():
        stored.setdefault(run_id, {})[metric] = value
    return {run_id: stored.get(run_id) or metric_values(con, run_id, logs=False) for run_id in run_ids}


def claim_statuses_source(con: duckdb.DuckDBPyConnection, run_id: str) -> str:
    """The table to read the run's claim statuses from (run_id, claim_id, ordinal, status, cited_ids).

    A run whose statuses were materialised reads claim_status_history. Any other run's rows of the live view are computed
    once per connection into a temporary table, since a report reads them up to three times (the
    claims table, the claims CSV, the changes from the baseline). The table is named after the run
    and its creation time: a run replaced later is a new run to this cache, never a stale one.
    """
    if scalar(con, "SELECT EXISTS (SELECT 1 FROM claim_status_history WHERE run_id = ?)", [run_id]):
        return "claim_status_history"
    import hashlib  # a report's and diff's, not every command's

    created = scalar(con, "SELECT CAST(created_at AS VARCHAR) FROM runs WHERE run_id = ?", [run_id])
    name = "claim_statuses_" + hashlib.sha256(f"{run_id}\t{created}".encode()).hexdigest()[:24]
    con.execute(
        f"CREATE TEMP TABLE IF NOT EXISTS {name} AS "
        "SELECT run_id, claim_id, ordinal, status, cited_ids FROM claim_status WHERE run_id = ?",
        [run_id],
    )
    return f"temp.{name}"


def status_changes(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> list[dict[str, str | None]]:
    """Claims (matched by claim id) whose status differs from ``run_a`` to ``run_b``.

    A claim present in one run only shows None for the other.
    """
    a_source = claim_statuses_source(con, run_a)
    b_source = claim_statuses_source(con, run_b)
    rows = con.execute(
        f"""
        WITH a AS (SELECT claim_id, ordinal, status FROM {a_source} WHERE run_id = ?),
             b AS (SELECT claim_id, ordinal, status FROM {b_source} WHERE run_id = ?)
        SELECT coalesce(b.claim_id, a.claim_id) AS claim_id, a.status AS before, b.status AS after
        FROM a FULL OUTER JOIN b ON a.claim_id = b.claim_id
        WHERE a.status IS DISTINCT FROM b.status
        ORDER BY b.ordinal NULLS LAST, a.ordinal
        """,
        [run_a, run_b],
    ).fetchall()
    return [{"claim_id": claim_id, "before": before, "after": after} for claim_id, before, after in rows]
