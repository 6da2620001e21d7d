"""Comparing two runs: metric deltas, and the questions and claims that changed.

The result is one row set (kind, name, a, b, delta, change, detail, severity, reason) so every
output format can carry it. A metric's ``change`` is better, worse or same by its direction
(``evalwh.vocabulary``); a question's or claim's comes from the views ``question_changes``
and ``claim_changes``, which hold the rule, its severity and its one-line reason (each read one run
at a time underneath, ``evalwh.history.pairs``), and they are listed worst first: by label, then the
most severe first. Markdown groups them into three tables. Runs of different datasets hold
different questions, so comparing them is refused unless asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from evalwh.errors import UsageError
from evalwh.history.materialize import metric_values
from evalwh.history.pairs import pair_changes
from evalwh.output.rows import Rows
from evalwh.output.templates import render
from evalwh.vocabulary import LATEST, WORST_FIRST, verdict
from evalwh.warehouse.connection import limit_memory
from evalwh.warehouse.runs import baseline_run, require_same_dataset, resolve_run

DIFF_COLUMNS: tuple[str, ...] = ("kind", "name", "a", "b", "delta", "change", "detail", "severity", "reason")
# question and claim rows, worst first: what got worse (the most severe first), what went away, what is
# new, what got better
CHANGE_ORDER = f"{WORST_FIRST}, severity DESC NULLS LAST, ordinal"
QUESTION_ROWS = f"""
    SELECT 'question', question_id, old_outcome, new_outcome, new_f1 - old_f1, change,
           CASE change WHEN 'worse' THEN worse_in WHEN 'better' THEN better_in END, severity, reason
    FROM {{changes}}
    WHERE baseline_run_id = $a AND run_id = $b AND change <> 'same'
    ORDER BY {CHANGE_ORDER}"""
# every claim whose status differs; one moving between failing statuses is neither better nor worse
CLAIM_ROWS = f"""
    SELECT 'claim', claim_id, old_status, new_status, NULL, NULLIF(change, 'same'), NULL, severity, reason
    FROM {{changes}}
    WHERE baseline_run_id = $a AND run_id = $b AND old_status IS DISTINCT FROM new_status
    ORDER BY {CHANGE_ORDER}"""


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


def diff_pair(
    con: duckdb.DuckDBPyConnection, runs: list[str], baseline: str | None, *, across_datasets: bool = False
) -> tuple[str | None, str]:
    """(from, to) for ``evalwh diff``: two runs as given; one run (default: latest) and its baseline
    (``--baseline``, else the previous run of its dataset; None when it has none)."""
    if len(runs) > 2:
        raise UsageError("diff takes at most two runs")
    if len(runs) == 2:
        if baseline is not None:
            raise UsageError("give two runs or --baseline, not both")
        return runs[0], runs[1]
    run_id = resolve_run(con, runs[0] if runs else LATEST)
    if across_datasets and baseline is not None:
        return resolve_run(con, baseline), run_id
    return baseline_run(con, run_id, baseline), run_id


def diff_runs(
    con: duckdb.DuckDBPyConnection, run_a: str, run_b: str, memory_limit: str | None = None,
    *, across_datasets: bool = False,
) -> tuple[str, str, Rows]:
    """Resolve both runs and return (a, b, rows): each metric defined in either run with its delta,
    then each question that changed and each claim whose status changed, worst first. Given a
    ``memory_limit``, DuckDB's memory is capped at it for the rest of the connection (past it, DuckDB
    spills); without one, DuckDB's own default holds, since under the views' cap both runs' facts spill
    (check 1.2 to 1.4 times slower on two 1M-claim runs: docs/benchmarks.md). Two runs of different
    datasets are a UsageError unless ``across_datasets``."""
    if memory_limit is not None:
        limit_memory(con, memory_limit)
    a, b = resolve_run(con, run_a), resolve_run(con, run_b)
    if not across_datasets:
        require_same_dataset(con, a, b, "pass --across-datasets to compare them anyway")
    before, after = metric_values(con, a), metric_values(con, b)
    rows: list[tuple[object, ...]] = [
        ("metric", m.name, m.previous, m.value, m.delta, m.verdict or None, None, None, None)
        for m in metric_changes(before, after)
    ]
    for view, sql in (("question_changes", QUESTION_ROWS), ("claim_changes", CLAIM_ROWS)):
        with pair_changes(con, view, a, b, across_datasets=across_datasets) as changes:
            rows += con.execute(sql.replace("{changes}", changes), {"a": a, "b": b}).fetchall()
    return a, b, Rows(DIFF_COLUMNS, rows)


def diff_markdown(run_a: str, run_b: str, rows: Rows, rules: str | None = None) -> str:
    """The diff as Markdown: a metrics table, then the changed questions and claims, worst first (after
    ``rules``, a sentence saying the two runs were computed under different rules, when they were)."""
    kinds = {kind: [r for r in rows.dicts() if r["kind"] == kind] for kind in ("metric", "question", "claim")}
    return render("md", "diff.md.j2", a=run_a, b=run_b, metrics=kinds["metric"], questions=kinds["question"],
                  claims=kinds["claim"], rules=rules).rstrip("\n") + "\n"
