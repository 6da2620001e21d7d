"""Read-side library API: one function per question a user asks of a run.

Each returns ``Rows`` straight from a view; the CLI only chooses the format.
"""

from __future__ import annotations

import re
import tempfile

import duckdb

from evalwh.errors import UsageError
from evalwh.history.materialize import metric_values, metric_values_of_runs
from evalwh.output.rows import Rows
from evalwh.sqltext import sql_literal
from evalwh.warehouse.runs import resolve_run


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | dict[str, object] | None = None) -> Rows:
    """Run any SELECT and return its rows."""
    rel = con.execute(sql, params or [])
    described = rel.description or []
    columns = tuple(d[0] for d in described)
    return Rows(columns, rel.fetchall() if columns else [], types=tuple(str(d[1]) for d in described))


# what `evalwh sql` runs: queries, never statements that write, attach, detach, copy, set or load
READ_ONLY_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})
# a PIVOT whose columns come from the data is a MULTI statement (a query for its columns, then the pivot)
PIVOT_KEYWORDS = frozenset({"pivot", "pivot_wider"})


def _tokens(sql: str) -> list[tuple[int, str, str]]:
    """(offset, kind, text) of each token of ``sql`` but its comments, by DuckDB's own tokenizer (DuckDB
    1.4's names no comment: one is then part of what runs to the next token, and is cut from a keyword
    or an operator, which hold no quotes)."""
    found = duckdb.tokenize(sql)
    ends = [offset for offset, _ in found[1:]] + [len(sql)]
    tokens = []
    for (offset, kind), end in zip(found, ends, strict=True):
        if kind.name == "comment":
            continue
        text = sql[offset:end].strip()
        if kind.name in ("keyword", "operator"):
            text = re.split(r"\s|--|/\*", text, maxsplit=1)[0]
        tokens.append((offset, kind.name, text))
    return tokens


def explained(sql: str) -> str:
    """The statement an EXPLAIN (EXPLAIN ANALYZE, EXPLAIN (options)) stands before."""
    tokens = _tokens(sql)[1:]  # after EXPLAIN
    if tokens and tokens[0][2].lower() == "analyze":
        tokens = tokens[1:]
    elif tokens and tokens[0][2] == "(":
        depth = 0
        for n, (_, kind, text) in enumerate(tokens):
            depth += (text == "(") - (text == ")") if kind == "operator" else 0
            if depth == 0:
                tokens = tokens[n + 1:]
                break
    return sql[tokens[0][0]:] if tokens else ""


def check_read_only(sql: str) -> None:
    """Raise UsageError unless ``sql`` is one query: a SELECT (DESCRIBE, SHOW, SUMMARIZE, FROM-first,
    VALUES, UNPIVOT), a PIVOT, or an EXPLAIN of one of those (EXPLAIN ANALYZE runs its statement)."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if not statements:
        raise UsageError("no SQL statement given")
    # DuckDB 1.4 gives a PIVOT whose columns come from the data as statements of its own making (the
    # type of its columns, then the query), each without text; DuckDB 2 gives one MULTI statement
    made = [s for s in statements if not s.query]
    written = len(statements) - len(made) + (1 if made else 0)
    if written > 1:
        raise UsageError(f"one statement at a time ({written} given)")
    kind = statements[-1].type
    tokens = _tokens(sql)
    first = tokens[0][2].lower() if tokens else ""
    if kind is duckdb.StatementType.EXPLAIN or first == "explain":  # EXPLAIN PIVOT is a MULTI statement
        inner = explained(sql)
        try:
            check_read_only(inner)
        except UsageError:
            raise UsageError(f"evalwh sql explains only queries: not {inner.strip()[:60]!r}") from None
        return
    if kind is duckdb.StatementType.MULTI and first in PIVOT_KEYWORDS:
        return
    if kind not in READ_ONLY_STATEMENTS:
        raise UsageError(f"evalwh sql runs read-only queries (SELECT, PIVOT or EXPLAIN); not {kind.name}")


def lake_data_path(con: duckdb.DuckDBPyConnection) -> str | None:
    """The data path of the attached warehouse when it is a lake; None for a file."""
    kind = con.execute("SELECT type FROM duckdb_databases() WHERE database_name = 'warehouse'").fetchall()
    if not kind or kind[0][0] != "ducklake":
        return None
    from evalwh.warehouse.lake import data_path

    return data_path(con)


def read_only_query(con: duckdb.DuckDBPyConnection, sql: str) -> Rows:
    """Run one user query on a read-only warehouse connection, locked down first.

    Only a query is accepted (``check_read_only``); the connection then loses access to anything
    outside the warehouse (files, extensions, ATTACH) and its configuration is locked, so no
    statement can reopen the file for writing. DuckDB lets a query read and list its own temporary
    directory even so: the query's is a new empty one of its own, removed afterwards.
    """
    check_read_only(sql)
    with tempfile.TemporaryDirectory(prefix="evalwh-sql-", ignore_cleanup_errors=True) as private:
        con.execute(f"SET temp_directory = {sql_literal(private)}")
        lake_files = lake_data_path(con)
        if lake_files is not None:  # a lake's tables are Parquet files there: the one place it may read
            con.execute("SET allowed_directories = ?", [[lake_files]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        return query(con, sql)


def baselines(con: duckdb.DuckDBPyConnection, dataset: str | None = None) -> Rows:
    """The blessed baselines (of ``dataset``, if given), by dataset (the view ``baselines``)."""
    return query(con, "SELECT dataset, run_id, set_at, note FROM baselines WHERE $d IS NULL OR dataset = $d "
                      "ORDER BY dataset", {"d": dataset})


# the metrics ``runs`` shows beside each run, as metrics_history names them
RUNS_METRICS = ("claims", "supported_share", "pair_precision", "questions")


def runs(con: duckdb.DuckDBPyConnection, dataset: str | None = None) -> Rows:
    """Every run (of ``dataset``, if given), oldest first, with its dataset and headline metrics
    (``metric_values_of_runs``: from history when stored, else live)."""
    listed = con.execute(
        "SELECT run_id, dataset, created_at, label FROM runs WHERE $dataset IS NULL OR dataset = $dataset "
        "ORDER BY created_at, run_id",
        {"dataset": dataset},
    )
    types = tuple(str(d[1]) for d in listed.description or ())
    listed_rows = listed.fetchall()
    values = metric_values_of_runs(con, [row[0] for row in listed_rows], RUNS_METRICS)
    rows = []
    for run_id, run_dataset, created_at, label in listed_rows:
        claims, supported_share, pair_precision, questions = (values[run_id].get(m) for m in RUNS_METRICS)
        rows.append((run_id, run_dataset, created_at, label, None if claims is None else int(claims),
                     supported_share, pair_precision, None if questions is None else int(questions)))
    return Rows(
        ("run_id", "dataset", "created_at", "label", *RUNS_METRICS),
        rows,
        types=(*types, "BIGINT", "DOUBLE", "DOUBLE", "BIGINT"),
    )


def claim_status(con: duckdb.DuckDBPyConnection, run: str) -> Rows:
    """Each claim of the run with its status, cited ids, text and quote, in file order."""
    return query(
        con,
        "SELECT claim_id, status, cited_ids, text, quote FROM claim_facts WHERE run_id = ? ORDER BY ordinal",
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
