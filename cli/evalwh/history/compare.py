"""Comparing two runs: metric deltas and the claims whose status changed.

The result is one row set (kind, name, a, b, delta, change) so every output format
can carry it; ``change`` is better, worse or same by the metric's direction
(``evalwh.vocabulary``). Markdown groups it into two tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from evalwh.errors import UsageError
from evalwh.history.materialize import metric_values, status_changes
from evalwh.output.rows import Rows
from evalwh.output.templates import render
from evalwh.vocabulary import verdict
from evalwh.warehouse.runs import LATEST, baseline_run, resolve_run

DIFF_COLUMNS: tuple[str, ...] = ("kind", "name", "a", "b", "delta", "change")


@dataclass(frozen=True)
class MetricChange:
    """A metric of one run beside its value in another, with the delta and its verdict."""

    name: str
    value: float | None
    previous: float | None
    delta: float | None
    verdict: str = ""  # better, worse, same or "" (vocabulary.verdict)


def metric_changes(
    before: dict[str, float | None], after: dict[str, float | None], *, removed: bool = True,
) -> list[MetricChange]:
    """Every metric defined in either run (``removed=False``: in ``after``), in ``after``'s order, then
    those only ``before`` has: the one place a metric's delta and verdict are computed."""
    names = list(after) + ([m for m in before if m not in after] if removed else [])
    out = []
    for name in names:
        old, new = before.get(name), after.get(name)
        if old is None and new is None:
            continue  # does not apply to either run
        delta = new - old if old is not None and new is not None else None
        out.append(MetricChange(name, new, old, delta, verdict(name, delta)))
    return out


def diff_pair(con: duckdb.DuckDBPyConnection, runs: list[str], baseline: str | None) -> tuple[str, str]:
    """(from, to) for ``evalwh diff``: two runs as given; one run (default: latest) and its baseline
    (``--baseline``, else the previous run of its dataset)."""
    if len(runs) > 2:
        raise UsageError("diff takes at most two runs")
    if len(runs) == 2:
        if baseline is not None:
            raise UsageError("give two runs or --baseline, not both")
        return runs[0], runs[1]
    run_id = resolve_run(con, runs[0] if runs else LATEST)
    before = baseline_run(con, run_id, baseline)
    if before is None:
        raise UsageError(f"run {run_id!r} has no earlier run in its dataset to compare with; pass --baseline RUN")
    return before, run_id


def diff_runs(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> tuple[str, str, Rows]:
    """Resolve both runs and return (a, b, rows): each metric defined in either run with its delta,
    then each changed claim."""
    a, b = resolve_run(con, run_a), resolve_run(con, run_b)
    before, after = metric_values(con, a), metric_values(con, b)
    rows: list[tuple[object, ...]] = [
        ("metric", m.name, m.previous, m.value, m.delta, m.verdict or None) for m in metric_changes(before, after)
    ]
    for change in status_changes(con, a, b):
        rows.append(("claim", change["claim_id"], change["before"], change["after"], None,
                     claim_verdict(change["before"], change["after"]) or None))
    return a, b, Rows(DIFF_COLUMNS, rows)


def claim_verdict(before: str | None, after: str | None) -> str:
    """A claim that became SUPPORTED got better; one that stopped being SUPPORTED got worse."""
    if before == after or before is None or after is None:
        return ""
    if after == "SUPPORTED":
        return "better"
    return "worse" if before == "SUPPORTED" else ""


def diff_markdown(run_a: str, run_b: str, rows: Rows) -> str:
    """The diff as Markdown: a metrics table and a table of changed claims."""
    metrics = [r for r in rows.dicts() if r["kind"] == "metric"]
    claims = [r for r in rows.dicts() if r["kind"] == "claim"]
    return render("md", "diff.md.j2", a=run_a, b=run_b, metrics=metrics, claims=claims).rstrip("\n") + "\n"
