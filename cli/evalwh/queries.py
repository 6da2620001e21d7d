"""Read-side library API: one function per question a user asks of a run.

Each returns ``Rows`` straight from a view; the CLI only chooses the format.
"""

from __future__ import annotations

import duckdb

from evalwh.errors import UsageError
from evalwh.history.materialize import metric_values
from evalwh.output.rows import Rows
from evalwh.warehouse.runs import resolve_run


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | dict[str, object] | None = None) -> Rows:
    """Run any SELECT and return its rows."""
    rel = con.execute(sql, params or [])
    described = rel.description or []
    columns = tuple(d[0] for d in described)
    return Rows(columns, rel.fetchall() if columns else [], types=tuple(str(d[1]) for d in described))


# what `evalwh sql` runs: queries, never statements that write, attach, detach, copy, set or load
READ_ONLY_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})


def read_only_query(con: duckdb.DuckDBPyConnection, sql: str) -> Rows:
    """Run one user query on a read-only warehouse connection, locked down first.

    Only a single SELECT (DESCRIBE, SHOW, SUMMARIZE, FROM-first and VALUES are SELECTs) or EXPLAIN
    is accepted; the connection then loses access to anything outside the warehouse (files,
    extensions, ATTACH) and its configuration is locked, so no statement can reopen the file
    for writing.
    """
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if not statements:
        raise UsageError("no SQL statement given")
    if len(statements) > 1:
        raise UsageError(f"one statement at a time ({len(statements)} given)")
    kind = statements[0].type
    if kind not in READ_ONLY_STATEMENTS:
        raise UsageError(f"evalwh sql runs read-only queries (SELECT or EXPLAIN); not {kind.name}")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return query(con, sql)


def runs(con: duckdb.DuckDBPyConnection, dataset: str | None = None) -> Rows:
    """Every run (of ``dataset``, if given), oldest first, with its dataset and headline metrics.

    The metrics are each run's ``metric_values``: from history when materialised, else live, one run at a
    time (a filter on one run_id reaches the views' tables; a filter over a list of runs does not).
    """
    listed = query(
        con,
        """
        SELECT r.run_id, r.dataset, r.created_at, r.label,
               (SELECT count(*) FROM questions AS q WHERE q.run_id = r.run_id) AS questions
        FROM runs AS r
        WHERE $dataset IS NULL OR r.dataset = $dataset
        ORDER BY r.created_at, r.run_id
        """,
        {"dataset": dataset},
    )
    rows = []
    for run_id, run_dataset, created_at, label, questions in listed.rows:
        values = metric_values(con, run_id, logs=False)
        claims = values["claims"]
        rows.append((run_id, run_dataset, created_at, label, None if claims is None else int(claims),
                     values["supported_share"], values["pair_precision"], questions))
    return Rows(
        ("run_id", "dataset", "created_at", "label", "claims", "supported_share", "pair_precision", "questions"),
        rows,
        types=(*(listed.types or ())[:4], "BIGINT", "DOUBLE", "DOUBLE", (listed.types or ())[4]),
    )


def claim_status(con: duckdb.DuckDBPyConnection, run: str) -> Rows:
    """Each claim of the run with its status, in file order."""
    return query(
        con,
        "SELECT claim_id, status, cited_ids FROM claim_status WHERE run_id = ? ORDER BY ordinal",
        [resolve_run(con, run)],
    )


def metrics(con: duckdb.DuckDBPyConnection, run: str) -> Rows:
    """The run's metrics, one row each (from history when materialised)."""
    run_id = resolve_run(con, run)
    return Rows(("run_id", "metric", "value"), [(run_id, m, v) for m, v in metric_values(con, run_id).items()])


def sweep(con: duckdb.DuckDBPyConnection, run: str, *, scores: bool = False) -> Rows:
    """The refusal threshold sweep of the run, by threshold: over the word-overlap count
    (threshold_sweep), or with ``scores`` over the retrievers' scores (score_sweep)."""
    view = "score_sweep" if scores else "threshold_sweep"
    return query(
        con,
        "SELECT threshold, correct, questions, wrongly_refused, wrongly_answered "
        f"FROM {view} WHERE run_id = ? ORDER BY threshold",
        [resolve_run(con, run)],
    )


def cases(con: duckdb.DuckDBPyConnection, run: str) -> Rows:
    """The run's test cases: question id, expected behaviour, supporting chunk id or ``none``."""
    return query(
        con,
        "SELECT question_id, expected, chunk_id FROM cases WHERE run_id = ? ORDER BY ordinal",
        [resolve_run(con, run)],
    )


def case_scores(con: duckdb.DuckDBPyConnection, run: str) -> tuple[Rows, Rows]:
    """Each case's three axes (hit/MISS, ok/BAD, ok/WRONG) in question order, and the run's k/n totals."""
    run_id = resolve_run(con, run)
    cases_ = query(
        con,
        "SELECT question_id AS case_id, retrieval, citation, refusal FROM case_scores WHERE run_id = ? ORDER BY ordinal",
        [run_id],
    )
    totals = query(con, "SELECT cases, retrieval, citation, refusal FROM case_score_summary WHERE run_id = ?", [run_id])
    return cases_, totals


LOG_VIEWS: dict[str, tuple[str, str]] = {
    "health": ("log_citation_health", "ts DESC NULLS LAST, source, request_id, position"),
    "replay": ("log_refusal_replay", "threshold"),
    "coverage": ("log_chunk_coverage", "retrieved_count + cited_count DESC, chunk_id"),
    "daily": ("log_daily", "day NULLS LAST"),
}


def log_view(con: duckdb.DuckDBPyConnection, name: str, run: str) -> Rows:
    """One of the production-log views, joined with ``run`` (a run id or ``latest``)."""
    view, order = LOG_VIEWS[name]
    return query(con, f"SELECT * EXCLUDE (run_id) FROM {view} WHERE run_id = ? ORDER BY {order}", [resolve_run(con, run)])
