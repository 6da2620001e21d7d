"""The CI gate: conditions on a run's metrics, each checked and reported.

``--min NAME=X`` needs the metric at least X, ``--max NAME=X`` at most X, and
``--max-drop NAME=X`` needs it to get worse by at most X since the baseline: fall, or rise
for a metric where lower is better (``evalwh.vocabulary``).
``--max-regressions questions=N`` (or ``claims=N``) needs at most N questions (claims) that got
worse since the baseline, by the rules of the views ``question_changes`` and ``claim_changes``;
``require_baseline`` fails the gate when the run has no baseline to compare with.
A counted kind's regressions are named, most severe first, each with its one-line reason (the
views' ``severity`` and ``reason``): the first few in text, every one in json, md and JUnit XML.
Metric names are those of run_metrics_long, in any case (``DANGLING`` is the
dangling count). Comparisons allow 1e-9 of floating-point slack, so a drop of
0.625 - 0.575 passes ``--max-drop ...=0.05``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import asdict, dataclass, field

import duckdb

from evalwh.errors import UsageError, closest
from evalwh.history.materialize import metric_values
from evalwh.history.pairs import pair_changes
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Location
from evalwh.output.templates import fmt_number, render
from evalwh.vocabulary import LOG_METRICS, PLAIN_DECIMAL, verdict, worsening
from evalwh.warehouse.connection import limit_memory, open_warehouse
from evalwh.warehouse.runs import baseline_for, resolve_run

TOLERANCE = 1e-9
OPERATORS = {"min": ">=", "max": "<=", "max-drop": "drop <=", "max-regressions": "worse <="}
# what --max-regressions counts: the rows of a comparison view labelled worse for the (baseline, run) pair
REGRESSIONS = {"questions": "question_changes", "claims": "claim_changes"}
NO_BASELINE = "no baseline: no earlier run of this dataset"


@dataclass(frozen=True)
class Condition:
    kind: str       # min | max | max-drop
    metric: str
    limit: float

    def __str__(self) -> str:
        return f"{self.metric} {OPERATORS[self.kind]} {fmt_number(self.limit)}"


@dataclass(frozen=True)
class Outcome:
    condition: str
    kind: str
    metric: str
    limit: float
    actual: float | None
    previous: float | None
    ok: bool
    detail: str


@dataclass(frozen=True)
class Regression:
    """A question or claim that got worse since the baseline, as the comparison views say."""

    kind: str        # questions | claims: the --max-regressions count it belongs to
    id: str          # the question or claim id
    severity: float  # question_changes.severity / claim_changes.severity: higher is worse
    reason: str      # the views' one-line reason


@dataclass(frozen=True)
class CheckResult:
    run_id: str
    previous_run: str | None
    outcomes: list[Outcome]
    # what each counted kind's --max-regressions compared: every regression, most severe first
    regressions: list[Regression] = field(default_factory=list)
    # why the run is compared with previous_run (evalwh.warehouse.runs.baseline_for), or with none
    baseline_why: str = ""

    def regressed(self, kind: str) -> list[Regression]:
        """The regressions of one kind (questions, claims), most severe first."""
        return [r for r in self.regressions if r.kind == kind]

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]


PLAIN_NUMBER = re.compile(PLAIN_DECIMAL)


def parse_condition(kind: str, text: str) -> Condition:
    """``supported_share=0.8`` -> Condition; a malformed one is a UsageError."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise UsageError(f"--{kind} {text!r}: expected METRIC=NUMBER, for example supported_share=0.8")
    # a plain decimal number only: float() would also take 1_0 (ten), nan and infinity
    if not PLAIN_NUMBER.fullmatch(value.strip()):
        raise UsageError(f"--{kind} {text!r}: {value.strip()!r} is not a number (write a plain decimal such as 0.8)")
    limit = float(value)
    if limit in (float("inf"), float("-inf")):
        raise UsageError(f"--{kind} {text!r}: the limit must be a finite number")
    if kind == "max-regressions" and name.strip().lower() not in REGRESSIONS:
        raise UsageError(f"--{kind} {text!r}: count questions or claims, for example questions=0"
                         f"{closest(name.strip().lower(), list(REGRESSIONS))}")
    return Condition(kind, name.strip().lower(), limit)


def evaluate(condition: Condition, now: dict[str, float | None], before: dict[str, float | None] | None) -> Outcome:
    """Check one condition against the run's metrics (and the previous run's for max-drop).

    A production-log metric of a run no log joins with has no data: the condition fails and says so.
    """
    if condition.metric not in now:
        return Outcome(str(condition), condition.kind, condition.metric, condition.limit, None, None, False,
                       "no data: no production log has been imported (evalwh logs import)")
    actual = now[condition.metric]
    previous = before.get(condition.metric) if before is not None else None
    if condition.kind == "max-drop":
        if before is None:
            return Outcome(str(condition), condition.kind, condition.metric, condition.limit, actual, None, True,
                           NO_BASELINE)
        if actual is not None and previous is None:  # the baseline has no such figure: nothing dropped
            return Outcome(str(condition), condition.kind, condition.metric, condition.limit, actual, None, True,
                           f"new: the baseline has no {condition.metric}; is {fmt_number(actual)}")
        if actual is None:
            return Outcome(str(condition), condition.kind, condition.metric, condition.limit, actual, previous, False,
                           "undefined for this run")
        assert previous is not None  # both figures exist from here on
        drop = worsening(condition.metric, previous, actual)  # a rise, for a metric where lower is better
        ok = drop <= condition.limit + TOLERANCE
        change = verdict(condition.metric, actual - previous)
        detail = f"{fmt_number(previous)} -> {fmt_number(actual)}, drop {fmt_number(drop)}" + \
            (f" ({change})" if change and change != "same" else "")
        return Outcome(str(condition), condition.kind, condition.metric, condition.limit, actual, previous, ok, detail)
    if actual is None:
        return Outcome(str(condition), condition.kind, condition.metric, condition.limit, None, previous, False,
                       "undefined for this run")
    ok = actual >= condition.limit - TOLERANCE if condition.kind == "min" else actual <= condition.limit + TOLERANCE
    return Outcome(str(condition), condition.kind, condition.metric, condition.limit, actual, previous, ok,
                   f"is {fmt_number(actual)}")


def evaluate_regressions(condition: Condition, worse: dict[str, int] | None) -> Outcome:
    """Check a ``max-regressions`` condition against the counts of questions and claims that got worse."""
    if worse is None:
        return Outcome(str(condition), condition.kind, condition.metric, condition.limit, None, None, True, NO_BASELINE)
    count = worse[condition.metric]
    ok = count <= condition.limit + TOLERANCE
    noun = condition.metric.removesuffix("s") if count == 1 else condition.metric
    return Outcome(str(condition), condition.kind, condition.metric, condition.limit, count, None, ok,
                   f"{count} {noun} got worse")


def regressed(
    con: duckdb.DuckDBPyConnection, baseline: str, run_id: str, kinds: Collection[str] = tuple(REGRESSIONS)
) -> list[Regression]:
    """The questions and claims of ``kinds`` that got worse from ``baseline`` to ``run_id``, each kind's
    most severe first (then by ordinal); a kind not asked for is not compared, since over large runs
    each comparison costs both runs' scores (each read one run at a time underneath,
    ``evalwh.history.pairs``)."""
    found: list[Regression] = []
    for kind in REGRESSIONS:
        if kind not in kinds:
            continue
        view = REGRESSIONS[kind]
        key = "question_id" if kind == "questions" else "claim_id"
        with pair_changes(con, view, baseline, run_id) as source:
            rows = con.execute(f"SELECT {key}, severity, reason FROM {source} WHERE baseline_run_id = ? "
                               "AND run_id = ? AND change = 'worse' ORDER BY severity DESC NULLS LAST, ordinal",
                               [baseline, run_id]).fetchall()
        found += [Regression(kind, str(i), float(sev) if sev is not None else 0.0, reason or "") for i, sev, reason in rows]
    return found


def regressions(
    con: duckdb.DuckDBPyConnection, baseline: str, run_id: str, kinds: Collection[str] = tuple(REGRESSIONS)
) -> dict[str, int]:
    """How many of ``kinds`` (questions, claims) got worse from ``baseline`` to ``run_id`` (``regressed``)."""
    return counted(regressed(con, baseline, run_id, kinds), kinds)


def counted(found: list[Regression], kinds: Collection[str]) -> dict[str, int]:
    """How many of ``found`` belong to each of ``kinds``."""
    return {kind: sum(r.kind == kind for r in found) for kind in REGRESSIONS if kind in kinds}


def check_on(
    con: duckdb.DuckDBPyConnection, run_id: str, conditions: list[Condition], baseline: str | None = None,
    *, require_baseline: bool = False,
) -> CheckResult:
    """Evaluate every condition on the resolved ``run_id`` over an open warehouse (``check`` and the
    report's verdict both come through here). Unknown metric names are a UsageError."""
    gates = [c for c in conditions if c.kind != "max-regressions"]
    counted_gates = [c for c in conditions if c.kind == "max-regressions"]
    now = metric_values(con, run_id)
    unknown = [c for c in gates if c.metric not in now and c.metric not in LOG_METRICS]
    if unknown:
        known = list(now) + [m for m in LOG_METRICS if m not in now]
        raise UsageError(f"unknown metric {unknown[0].metric!r}{closest(unknown[0].metric, known)} "
                         f"(metrics: {', '.join(known)})")
    chosen = baseline_for(con, run_id, baseline)
    previous = chosen.run_id
    before = metric_values(con, previous) if previous else None
    kinds = {c.metric for c in counted_gates}
    found = regressed(con, previous, run_id, kinds) if previous and kinds else []
    worse = counted(found, kinds) if previous and kinds else None
    outcomes = [evaluate(c, now, before) if c.kind != "max-regressions" else evaluate_regressions(c, worse)
                for c in conditions]
    if require_baseline:
        outcomes.insert(0, Outcome("baseline required", "require-baseline", "", 0.0, None, None, previous is not None,
                                   f"compared with {previous}" if previous else NO_BASELINE))
    return CheckResult(run_id, previous, outcomes, regressions=found, baseline_why=chosen.why)


def run_check(
    db: Location, run: str, conditions: list[Condition], baseline: str | None = None, invocation: Invocation = QUIET,
    *, require_baseline: bool = False,
) -> CheckResult:
    """Evaluate every condition on ``run``; ``--max-drop`` and ``--max-regressions`` compare with ``baseline``
    (default: the previous run of the run's dataset). Unknown metric names are a UsageError.
    ``require_baseline`` adds a condition that fails when there is no baseline."""
    if not conditions and not require_baseline:
        raise UsageError("give at least one condition: --min, --max, --max-drop METRIC=NUMBER or "
                         "--max-regressions questions|claims=N, or a [check] table in evalwh.toml")
    with open_warehouse(db, invocation=invocation, udfs=False) as con:
        if invocation.memory_limit is not None:  # else DuckDB's default, as for diff (evalwh.history.compare)
            limit_memory(con, invocation.memory_limit)
        return check_on(con, resolve_run(con, run), conditions, baseline, require_baseline=require_baseline)


def conditions(n: int) -> str:
    """``1 condition``, ``2 conditions``."""
    return f"{n} condition" if n == 1 else f"{n} conditions"


# how many regressions of a kind the text output names under its condition; json, md and junit name all
NAMED_IN_TEXT = 10


def regression_line(r: Regression) -> str:
    """``q3 (severity 5): outcome correct action -> wrong action (...)``."""
    return f"{r.id} (severity {fmt_number(r.severity)}): {r.reason}"


def format_text(result: CheckResult) -> str:
    """One line per condition, each --max-regressions one followed by the first NAMED_IN_TEXT regressions
    it counted (most severe first, indented), then a summary line."""
    lines = [f"baseline: {result.previous_run or 'none'} ({result.baseline_why})"] if result.baseline_why else []
    for o in result.outcomes:
        lines.append(f"{'ok  ' if o.ok else 'FAIL'}  {o.condition}: {o.detail}")
        if o.kind == "max-regressions":
            named = result.regressed(o.metric)
            lines += [f"      {regression_line(r)}" for r in named[:NAMED_IN_TEXT]]
            if len(named) > NAMED_IN_TEXT:
                lines.append(f"      ... and {len(named) - NAMED_IN_TEXT} more (check -f json or -f md names them all)")
    if result.ok:
        held = "the condition holds" if len(result.outcomes) == 1 else f"all {len(result.outcomes)} conditions hold"
        lines.append(f"run {result.run_id}: {held}")
    else:
        lines.append(f"run {result.run_id}: {len(result.failed)} of {conditions(len(result.outcomes))} failed")
    return "\n".join(lines) + "\n"


def format_json(result: CheckResult) -> str:
    """Machine-readable result."""
    payload = {"run_id": result.run_id, "previous_run": result.previous_run, "baseline_why": result.baseline_why,
               "ok": result.ok,
               "conditions": [asdict(o) for o in result.outcomes],
               "regressions": [asdict(r) for r in result.regressions]}
    return json.dumps(payload, indent=2) + "\n"


def format_md(result: CheckResult) -> str:
    """A pull-request comment."""
    return render("md", "check.md.j2", r=result).rstrip("\n") + "\n"


def format_junit(result: CheckResult) -> str:
    """JUnit XML, as CI systems (GitHub, GitLab, Jenkins, Buildkite) render test results: one testsuite for
    the run, one testcase per condition (classname ``evalwh.gates``, a ``<failure>`` when it fails) and one
    per question and claim that got worse (``evalwh.questions``, ``evalwh.claims``), most severe first: a
    ``<failure>`` with its reason when the condition counting it failed, else the reason as its output."""
    from xml.etree import ElementTree as ET

    failed_kinds = {o.metric for o in result.failed if o.kind == "max-regressions"}
    cases: list[ET.Element] = []
    for o in result.outcomes:
        case = ET.Element("testcase", classname="evalwh.gates", name=o.condition)
        if not o.ok:
            ET.SubElement(case, "failure", type="gate", message=o.detail).text = f"{o.condition}: {o.detail}"
        cases.append(case)
    for r in result.regressions:
        case = ET.Element("testcase", classname=f"evalwh.{r.kind}", name=r.id)
        line = f"severity {fmt_number(r.severity)}: {r.reason}"
        if r.kind in failed_kinds:
            ET.SubElement(case, "failure", type="regression", message=r.reason).text = line
        else:
            ET.SubElement(case, "system-out").text = f"got worse, within the gate: {line}"
        cases.append(case)
    failures = sum(case.find("failure") is not None for case in cases)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0"}
    suites = ET.Element("testsuites", {"name": "evalwh check", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": f"evalwh check: run {result.run_id}", "skipped": "0", **counts})
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="run_id", value=result.run_id)
    ET.SubElement(properties, "property", name="baseline", value=result.previous_run or "")
    ET.SubElement(properties, "property", name="baseline_why", value=result.baseline_why)
    suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
