"""Naming runs: ``latest``, resolving a name, reserved names, a dataset's runs, a run's previous run and baseline.

Every command that takes ``--run`` or ``--baseline`` resolves it here, so ``latest`` and "the
previous run of the dataset" mean the same in a report, a diff and a gate.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb

from evalwh.errors import UsageError
from evalwh.vocabulary import LATEST

# export writes each run into a directory named run_id=<id>, every byte of the id but ASCII letters and digits
# escaped as %XX: the name must fit a file system's 255 bytes with room to spare
MAX_RUN_NAME_ESCAPED = 200


def escaped_length(name: str) -> int:
    """The length of ``name`` in an exported partition's directory name: 1 for an ASCII letter or digit,
    3 for every UTF-8 byte of any other character."""
    return sum(1 if ch.isascii() and ch.isalnum() else 3 * len(ch.encode("utf-8", "surrogatepass")) for ch in name)


def check_run_name(name: str) -> str:
    """A run name is non-empty, is not the word ``latest``, has no tab or newline, and is short enough
    for every command (an exported run's directory name)."""
    if not name or name.strip() != name or any(ch in name for ch in "\t\r\n"):
        raise UsageError(f"invalid run name {name!r}: it must be non-empty, without surrounding spaces, tabs or newlines")
    if escaped_length(name) > MAX_RUN_NAME_ESCAPED:
        raise UsageError(f"run name of {len(name)} characters is too long: export writes it into a directory "
                         f"name, where it may take {MAX_RUN_NAME_ESCAPED} bytes (an ASCII letter or digit 1, "
                         "any other character 3 per UTF-8 byte)")
    if name == LATEST:
        raise UsageError(f"{LATEST!r} is reserved for the most recent run; choose another run name")
    return name


def run_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """All run ids, oldest first."""
    return [row[0] for row in con.execute("SELECT run_id FROM runs ORDER BY created_at").fetchall()]

def resolve_run(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The run id ``name`` refers to: a run id, or ``latest`` for the most recently created run."""
    ids = run_ids(con)
    if not ids:
        raise UsageError("the warehouse has no runs yet; load one with `evalwh load DIR` or `evalwh seed`")
    if name == LATEST:
        return ids[-1]
    if name not in ids:
        raise UsageError(f"no run named {name!r} (runs: {', '.join(ids)})")
    return name


TREND_RUNS = 20  # the most recent runs of the dataset a trend chart shows


def dataset_runs(con: duckdb.DuckDBPyConnection, dataset: str | None, up_to: str | None = None) -> list[str]:
    """The runs of ``dataset``, oldest first (up to and including ``up_to``), at most the last TREND_RUNS."""
    ids = [r[0] for r in con.execute(
        "SELECT run_id FROM runs WHERE dataset IS NOT DISTINCT FROM $d AND created_at <= coalesce("
        "(SELECT created_at FROM runs WHERE run_id = $u), 'infinity'::TIMESTAMP) ORDER BY created_at",
        {"d": dataset, "u": up_to}).fetchall()]
    return ids[-TREND_RUNS:]


def previous_run(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """The run of the same dataset created just before ``run_id``, if any."""
    row = con.execute(
        "SELECT p.run_id FROM runs AS r JOIN runs AS p ON p.dataset IS NOT DISTINCT FROM r.dataset "
        "AND p.created_at < r.created_at WHERE r.run_id = ? ORDER BY p.created_at DESC LIMIT 1",
        [run_id],
    ).fetchall()
    return row[0][0] if row else None


def require_same_dataset(con: duckdb.DuckDBPyConnection, baseline: str, run_id: str, hint: str) -> None:
    """A UsageError when the two runs belong to different datasets: their questions and claims are not
    the same ones, so the comparison views pair runs of one dataset only (run_pairs)."""
    datasets = dict(con.execute("SELECT run_id, dataset FROM runs WHERE run_id IN (?, ?)", [baseline, run_id]).fetchall())
    if datasets.get(baseline) != datasets.get(run_id):
        def name(d: object) -> str:
            return "no dataset" if d is None else f"dataset {d!r}"
        raise UsageError(f"runs {baseline!r} ({name(datasets.get(baseline))}) and {run_id!r} "
                         f"({name(datasets.get(run_id))}) belong to different datasets; {hint}")


def moment_after(con: duckdb.DuckDBPyConnection, latest_sql: str, params: list[object]) -> dt.datetime:
    """Now (UTC), or a microsecond past the moment ``latest_sql`` returns when that is not earlier: what a
    new run or baseline setting is stamped with, so that 'latest' is always one row."""
    latest = con.execute(latest_sql, params).fetchall()[0][0]
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    return latest + dt.timedelta(microseconds=1) if latest is not None and now <= latest else now


@dataclass(frozen=True)
class Baseline:
    """The run another run is compared with (None: there is none), and why that one (or why none)."""

    run_id: str | None
    why: str


def blessed_baseline(con: duckdb.DuckDBPyConnection, dataset: str | None) -> str | None:
    """The blessed baseline of ``dataset`` (the view ``baselines``), if one is set."""
    rows = con.execute("SELECT run_id FROM baselines WHERE dataset = ?", [dataset]).fetchall()
    return rows[0][0] if rows else None


def rules_of(con: duckdb.DuckDBPyConnection, run_id: str) -> int | None:
    """The rules version the run's reported values were computed under: that of its stored history rows
    (None: stored by a release that did not record it), or this release's when none are stored (the
    views compute them live)."""
    from evalwh.vocabulary import RULES_VERSION

    found = con.execute("SELECT DISTINCT rules_version FROM metrics_history WHERE run_id = ? ORDER BY 1 NULLS FIRST",
                        [run_id]).fetchall()
    return RULES_VERSION if not found else found[0][0]


def rules_label(version: int | None) -> str:
    return "unrecorded rules" if version is None else f"rules {version}"


def rules_note(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> str | None:
    """A sentence when the two runs' values were computed under different rules (so a change between
    them may be a change of rules, not of the system); None when the rules are the same."""
    a, b = rules_of(con, run_a), rules_of(con, run_b)
    if a == b and a is not None:
        return None
    return (f"{run_a} and {run_b} were computed under different rules ({run_a}: {rules_label(a)}, {run_b}: "
            f"{rules_label(b)}); `evalwh materialize --rescore` recomputes them under this release's")


def baseline_for(con: duckdb.DuckDBPyConnection, run_id: str, baseline: str | None) -> Baseline:
    """What ``run_id`` is compared with, and why: ``baseline`` (a run id or 'latest') if given; else the
    blessed baseline of its dataset (``evalwh baseline set``), unless that is the run itself; else the
    previous run of its dataset (none when there is none). A baseline of another dataset is a UsageError.
    When the two runs' values were computed under different rules, the why says so."""
    chosen = _baseline_for(con, run_id, baseline)
    note = rules_note(con, chosen.run_id, run_id) if chosen.run_id is not None else None
    return chosen if note is None else Baseline(chosen.run_id, f"{chosen.why}; {note}")


def _baseline_for(con: duckdb.DuckDBPyConnection, run_id: str, baseline: str | None) -> Baseline:
    if baseline is not None:
        chosen = resolve_run(con, baseline)
        if chosen == run_id:
            raise UsageError(f"--baseline {baseline!r} is the run itself; choose another run")
        require_same_dataset(con, chosen, run_id, "choose a baseline of the run's own dataset")
        return Baseline(chosen, "given with --baseline")
    dataset = con.execute("SELECT dataset FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0]
    named = "no dataset" if dataset is None else f"dataset {dataset}"
    blessed = blessed_baseline(con, dataset)
    if blessed is not None and blessed != run_id:
        return Baseline(blessed, f"the blessed baseline of {named}")
    previous = previous_run(con, run_id)
    if blessed == run_id:
        itself = f"the run itself is the blessed baseline of {named}"
        return Baseline(previous, f"the previous run; {itself}" if previous else f"{itself}, and it has no earlier run")
    if previous is None:
        return Baseline(None, f"no earlier run of {named}, and none is blessed")
    return Baseline(previous, f"the previous run of {named}; none is blessed")


def baseline_run(con: duckdb.DuckDBPyConnection, run_id: str, baseline: str | None) -> str | None:
    """The run ``run_id`` is compared with (``baseline_for``), None when there is none."""
    return baseline_for(con, run_id, baseline).run_id


def unparsed_responses(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The questions whose response does not parse in the run's reader format, in question order."""
    return [r[0] for r in con.execute(
        "SELECT question_id FROM responses WHERE run_id = ? AND NOT parse_ok ORDER BY ordinal", [run_id]).fetchall()]


def run_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every base table holding rows of a run (a ``run_id`` column), ``runs`` last: what a replaced run
    loses, its materialised history included. Read from the catalog, so a table a schema step adds is
    never forgotten."""
    tables = con.execute(
        "SELECT c.table_name FROM duckdb_columns() AS c JOIN duckdb_tables() AS t "
        "ON t.database_name = c.database_name AND t.schema_name = c.schema_name AND t.table_name = c.table_name "
        "WHERE c.database_name = current_database() AND c.schema_name = 'main' AND c.column_name = 'run_id' "
        "ORDER BY c.table_name = 'runs', c.table_name"
    ).fetchall()
    return [name for (name,) in tables]
