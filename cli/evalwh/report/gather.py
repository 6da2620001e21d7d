"""What a run's report shows, gathered from the views; ``evalwh.report.render`` writes it out.

Gathering reads only capped slices of the big tables (failing claims first), so a run of any size
gives a short page; the full per-claim table is written beside the report as CSV.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from evalwh.errors import UsageError
from evalwh.history.check import CheckResult, Condition, check_on
from evalwh.history.compare import MetricChange as Metric
from evalwh.history.compare import metric_changes
from evalwh.history.gates import Gates
from evalwh.history.materialize import claim_statuses_source, metric_values, metric_values_of_runs, status_changes
from evalwh.history.pairs import pair_changes
from evalwh.output.templates import fmt_number
from evalwh.report.highlight import segments
from evalwh.report.narrative import case_sentence
from evalwh.vocabulary import (
    EXPECTED_ACTIONS,
    FAILING_FIRST,
    HEADLINE,
    LOG_HEALTH,
    OBSERVED_ACTIONS,
    REPORT_JUDGE_TOLERANCE,
    REPORT_MAX_ROWS,
    RULES_VERSION,
    STATUSES,
    direction,
)
from evalwh.warehouse.connection import dicts, one, scalar
from evalwh.warehouse.runs import (
    TREND_RUNS,
    baseline_for,
    dataset_runs,
    resolve_run,
    rules_label,
    unparsed_responses,
)

DEFAULT_MAX_ROWS = REPORT_MAX_ROWS

# What the checks prove and what they leave open, shown in every report.
LEAVES_OPEN: tuple[str, ...] = (
    "A citation is checked as a pointer: the cited chunk id must exist in the run's chunk store (else DANGLING).",
    "The claim's quote must appear word for word, after normalising case and punctuation, in a cited chunk "
    "(else UNSUPPORTED).",
    "Every run of digits in the claim must be among the quote's digit runs (else NUMBER_MISMATCH).",
    "SUPPORTED means only that the quote is in the cited chunk and the claim's numbers are in the quote. It does "
    "not mean the claim says nothing beyond its quote: the chapter's claim c8 adds \"checked weekly\" to a quote "
    "about the VPN and still passes. A person or a separate evaluation step has to read a sample.",
    "The refusal sweep scores one signal, the best chunk's word-overlap score. A threshold trades answerable "
    "questions wrongly refused against unanswerable ones wrongly answered; no threshold need get every question right.",
)


@dataclass
class Trend:
    """One metric over the runs of a dataset, oldest first, ending with the reported run."""

    metric: str
    points: list[tuple[str, float]]
    # a gate's line on the value axis, where one is set on the metric: (value, label such as ">= 0.9")
    threshold: tuple[float, str] | None = None

    # the plot area of the chart, in SVG units
    WIDTH = 300
    HEIGHT = 110

    def _range(self) -> tuple[float, float]:
        """The values drawn, the gate's line among them: their smallest and largest."""
        values = [v for _, v in self.points] + ([self.threshold[0]] if self.threshold else [])
        return min(values), max(values)

    def _pad(self) -> float:
        """A tenth of the values' span on each side, so that no point sits on the frame (a flat line: a
        twentieth of its value, at least 0.01)."""
        lo, hi = self._range()
        return (hi - lo) / 10 if hi > lo else max(abs(hi) / 20, 0.01)

    @property
    def low(self) -> float:
        """The bottom of the value axis: the data's range, not 0, so a drop that fails a gate shows
        (a share's axis stays within 0 and 1)."""
        lo, _ = self._range()
        return max(lo - self._pad(), 0.0) if lo >= 0 else lo - self._pad()

    @property
    def high(self) -> float:
        """The top of the value axis (a share's at most 1; never equal to the bottom)."""
        lo, hi = self._range()
        top = hi + self._pad()
        return min(top, 1.0) if 0 <= lo and hi <= 1 else top

    def y(self, value: float) -> float:
        """The chart's y of ``value``, down from the top of the plot area."""
        return round(self.HEIGHT * (1 - (value - self.low) / (self.high - self.low)), 1)

    def coords(self) -> list[tuple[float, float, str, float]]:
        """(x, y, run id, value) of each point, x from the oldest run to the newest, y up from the bottom."""
        n = len(self.points)
        return [(round(self.WIDTH * (i / (n - 1) if n > 1 else 0.5), 1), self.y(v), run_id, v)
                for i, (run_id, v) in enumerate(self.points)]


@dataclass
class Capped:
    """The first rows of a longer list, and how many were left out."""

    rows: list[Any]
    total: int

    @property
    def left_out(self) -> int:
        return self.total - len(self.rows)


@dataclass
class Changes:
    """The questions and the claims whose change (question_changes, claim_changes) is one label."""

    questions: Capped
    claims: Capped

    @property
    def total(self) -> int:
        return self.questions.total + self.claims.total


@dataclass
class ReportData:
    run: dict[str, Any]
    previous: str | None
    baseline_why: str  # why the run is compared with previous (or with none)
    metrics: list[Metric]
    status_counts: list[tuple[str, int]]
    claims: Capped
    sweep: list[dict[str, Any]]
    cases: Capped
    changes: Capped
    claims_csv: str | None = None
    headline: list[Metric] | None = None
    summary: str = ""
    trends: list[Trend] | None = None
    retrieve_read: dict[str, Any] | None = None
    axes: dict[str, Any] | None = None
    production: dict[str, Any] | None = None
    gates: Gates | None = None
    verdict: CheckResult | None = None  # None: no gates set
    worse: Changes | None = None        # None: no baseline
    better: Changes | None = None
    unparsed: dict[str, Any] | None = None  # responses that do not parse in the run's reader format



def trends(values: dict[str, dict[str, float | None]], run_ids: list[str], names: list[str],
           conditions: Sequence[Condition] = ()) -> list[Trend]:
    """Each named metric over ``run_ids``, from each run's metric values (runs where it is undefined are
    skipped, and so are metrics no run has), with its gate's line where ``conditions`` set one: a
    ``--min`` or ``--max`` limit, or for ``--max-drop`` the next-to-last point's value less the drop
    allowed (more, where lower is better)."""
    out = []
    for name in names:
        points = [(run_id, value) for run_id in run_ids if (value := values[run_id].get(name)) is not None]
        if not points:
            continue
        line = None
        for c in conditions:
            if c.metric != name:
                continue
            if c.kind in ("min", "max"):
                line = (c.limit, f"gate {'>=' if c.kind == 'min' else '<='} {fmt_number(c.limit)}")
            elif c.kind == "max-drop" and len(points) > 1:
                before = points[-2][1]
                floor = before + c.limit if direction(name) == "lower" else before - c.limit
                line = (floor, f"drop gate {fmt_number(floor)}")
        out.append(Trend(name, points, line))
    return out


def counted(n: int, noun: str) -> str:
    """``1 claim``, ``3 claims``, ``1 question``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def summary_line(run: dict[str, Any], previous: str | None, metrics: list[Metric], claims: int,
                 supported: int, worse: tuple[int, int] | None = None) -> str:
    """One sentence a reader can stop at: what the run holds and how it moved against its baseline,
    counting the claims and questions that got worse (``worse``: (claims, questions)) before the metrics."""
    parts = [f"Run {run['run_id']} of dataset {run['dataset']}"]
    if claims:
        parts.append(f"{supported} of {claims} claims supported")
    if previous is None:
        parts.append("no earlier run of this dataset to compare with")
    else:
        better = sum(m.verdict == "better" for m in metrics)
        fell = sum(m.verdict == "worse" for m in metrics)
        claims_worse, questions_worse = worse or (0, 0)
        if claims_worse or questions_worse:
            items = [counted(n, noun) for n, noun in ((claims_worse, "claim"), (questions_worse, "question")) if n]
            regressed = f"{' and '.join(items)} got worse"
        else:
            regressed = "no claim or question got worse"
        parts.append(f"against {previous}: {regressed}; {counted(better, 'metric')} better, {fell} worse")
    return "; ".join(parts) + "."


# the rows of the comparison views for some labels, unordered: `changed` orders each label's the most
# severe first (a worse row's severity), then by ordinal
QUESTION_CHANGES = """
    SELECT question_id, ordinal, question, expected, old_answer, new_answer, old_action, new_action, old_outcome,
           new_outcome, old_f1, new_f1, worse_in, better_in, change, severity, reason
    FROM {changes}
    WHERE baseline_run_id = $a AND run_id = $b AND change IN (SELECT unnest($labels::VARCHAR[]))"""
CLAIM_CHANGES = """
    SELECT claim_id, ordinal, text, quote, cited_ids, old_status, new_status, change, severity, reason
    FROM {changes}
    WHERE baseline_run_id = $a AND run_id = $b AND change IN (SELECT unnest($labels::VARCHAR[]))"""
# the cited chunks of some claims of one run, in the claims' order of citing them
CITED_CHUNKS = """
    SELECT p.claim_id,
           list(struct_pack(chunk_id := p.chunk_id, chunk_exists := p.chunk_exists, text := ch.text)
                ORDER BY p.ordinal) AS chunks
    FROM citation_pairs AS p
    LEFT JOIN chunks AS ch ON ch.run_id = p.run_id AND ch.chunk_id = p.chunk_id
    WHERE p.run_id = $run AND p.claim_id IN (SELECT unnest($claims::VARCHAR[]))
    GROUP BY p.claim_id"""


def changed(
    con: duckdb.DuckDBPyConnection, baseline: str, run_id: str, labels: Sequence[str], limit: int
) -> dict[str, Changes]:
    """Label -> the questions and claims labelled so from ``baseline`` to ``run_id``, at most ``limit`` of
    each, with what the report shows of them. Each comparison view is read once for all the labels:
    its rows for them are kept in a temporary table, which the counts and the rows of each label read,
    instead of the view being computed again for each count and each list (over large runs, each
    reading of question_changes computes both runs' cases). Both are read one run at a time underneath
    (``evalwh.history.pairs``)."""
    params: dict[str, Any] = {"a": baseline, "b": run_id, "labels": list(labels)}
    found: dict[str, list[Capped]] = {label: [] for label in labels}
    for view, sql in (("question_changes", QUESTION_CHANGES), ("claim_changes", CLAIM_CHANGES)):
        with pair_changes(con, view, baseline, run_id) as changes:
            con.execute(f"CREATE OR REPLACE TEMP TABLE report_changes AS {sql.replace('{changes}', changes)}",
                        params)
        try:
            for label in labels:
                total = scalar(con, "SELECT count(*) FROM temp.report_changes WHERE change = ?", [label])
                rows = dicts(con, "SELECT * FROM temp.report_changes WHERE change = ? "
                                  f"ORDER BY severity DESC NULLS LAST, ordinal LIMIT {int(limit)}", [label])
                if view == "claim_changes":
                    _with_cited_chunks(con, rows, baseline, run_id)
                found[label].append(Capped(rows, total))
        finally:
            con.execute("DROP TABLE temp.report_changes")
    return {label: Changes(questions, claims) for label, (questions, claims) in found.items()}


def _with_cited_chunks(con: duckdb.DuckDBPyConnection, rows: list[dict[str, Any]], baseline: str, run_id: str) -> None:
    """Give each claim row its cited chunks (``chunks``: None when it cites none), from the run the claim is in
    (the baseline's, for a removed claim): looked up for the rows shown only, not for every claim that changed."""
    for run, claims in ((run_id, [r for r in rows if r["new_status"] is not None]),
                        (baseline, [r for r in rows if r["new_status"] is None])):
        cited = dict(con.execute(CITED_CHUNKS, {"run": run, "claims": [r["claim_id"] for r in claims]}).fetchall()) \
            if claims else {}
        for row in claims:
            row["chunks"] = cited.get(row["claim_id"])


def _claims(con: duckdb.DuckDBPyConnection, run_id: str, source: str, limit: int) -> Capped:
    total = scalar(con, f"SELECT count(*) FROM {source} WHERE run_id = ?", [run_id])
    rows = dicts(
        con,
        f"SELECT s.claim_id, s.status, s.cited_ids, c.text, c.quote, c.quote_norm "
        f"FROM {source} AS s JOIN claims AS c ON c.run_id = s.run_id AND c.claim_id = s.claim_id "
        f"WHERE s.run_id = ? ORDER BY {FAILING_FIRST}, s.ordinal LIMIT ?",
        [run_id, limit],
    )
    if rows:
        pairs = dicts(
            con,
            "SELECT p.claim_id, p.ordinal, p.chunk_id, p.chunk_exists, p.quote_found, ch.text "
            "FROM citation_pairs AS p LEFT JOIN chunks AS ch ON ch.run_id = p.run_id AND ch.chunk_id = p.chunk_id "
            "WHERE p.run_id = ? AND p.claim_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY p.claim_id, p.ordinal",
            [run_id, [r["claim_id"] for r in rows]],
        )
        by_claim: dict[str, list[dict[str, Any]]] = {}
        for pair in pairs:
            by_claim.setdefault(pair["claim_id"], []).append(pair)
        for row in rows:
            row["citations"] = [
                {
                    "chunk_id": p["chunk_id"],
                    "exists": p["chunk_exists"],
                    "quote_found": p["quote_found"],
                    "segments": segments(p["text"], row["quote_norm"]) if p["quote_found"] else [(p["text"] or "", False)],
                }
                for p in by_claim.get(row["claim_id"], [])
            ]
    return Capped(rows, total)


def _retrieve_read(con: duckdb.DuckDBPyConnection, run_id: str, limit: int) -> dict[str, Any] | None:
    """Retrieval and reader sections; None when the run has neither gold chunks nor responses to judge."""
    counts = one(
        con,
        "SELECT (SELECT count(*) FROM questions WHERE run_id = $r AND gold_chunk_id IS NOT NULL), "
        "(SELECT count(*) FROM responses WHERE run_id = $r)",
        {"r": run_id},
    )
    if not any(counts):
        return None
    settings = dicts(con, "SELECT * FROM run_settings WHERE run_id = ?", [run_id])[0]
    questions_total = scalar(con, "SELECT count(*) FROM questions WHERE run_id = ?", [run_id])
    per_question = dicts(
        con,
        """
        SELECT q.question_id, q.question, o.answer, q.expected, e.gold_chunk_id, e.label, g.shared_words, o.action, qo.outcome,
               a.exact_match, a.f1, s.failed_checks
        FROM questions AS q
        JOIN retrieval_eval AS e ON e.run_id = q.run_id AND e.question_id = q.question_id
        LEFT JOIN gold_overlap AS g ON g.run_id = q.run_id AND g.question_id = q.question_id
        LEFT JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
        LEFT JOIN question_outcomes AS qo ON qo.run_id = q.run_id AND qo.question_id = q.question_id
        LEFT JOIN answer_scores AS a ON a.run_id = q.run_id AND a.question_id = q.question_id
        LEFT JOIN support_screen AS s ON s.run_id = q.run_id AND s.question_id = q.question_id
        WHERE q.run_id = ?
        ORDER BY CASE WHEN s.held_for_review OR qo.outcome <> 'correct action' OR e.recall_at_k = 0 THEN 0 ELSE 1 END,
                 q.ordinal
        LIMIT ?
        """,
        [run_id, limit],
    )
    confusion = {(e, o): n for e, o, n in con.execute(
        "SELECT expected, observed, n FROM action_confusion WHERE run_id = ?", [run_id]).fetchall()}
    policies = dicts(con, "SELECT policy, exact_matches, total, missed FROM policy_baselines WHERE run_id = ? "
                           "ORDER BY position", [run_id])
    return {
        "settings": settings,
        "questions": Capped(per_question, questions_total),
        "confusion": confusion,
        "expected_actions": EXPECTED_ACTIONS,
        "observed_actions": OBSERVED_ACTIONS,
        "policies": policies,
        "responses": counts[1],
    }


DEFAULT_JUDGE_TOLERANCE = REPORT_JUDGE_TOLERANCE


def _axes(con: duckdb.DuckDBPyConnection, run_id: str, limit: int, tolerance: float) -> dict[str, Any] | None:
    """Three-axis case scores, refusal use, bracket citation checks and grader agreement, where present."""
    summary = dicts(con, "SELECT * FROM case_score_summary WHERE run_id = ?", [run_id])
    graders = dicts(con, "SELECT judge, items, disagreements, disagreement_rate, disagreed_items "
                          "FROM grader_agreement WHERE run_id = ? ORDER BY judge", [run_id])
    if not summary and not graders:
        return None
    cases_ = dicts(
        con,
        "SELECT s.question_id, q.expected, s.expected_chunk, s.retrieved_ids, s.cited_ids, s.refused, "
        "s.retrieval_ok, s.citation_ok, s.refusal_ok, s.retrieval, s.citation, s.refusal "
        "FROM case_scores AS s JOIN questions AS q ON q.run_id = s.run_id AND q.question_id = s.question_id "
        "WHERE s.run_id = ? ORDER BY s.ordinal LIMIT ?",
        [run_id, limit],
    )
    for case in cases_:
        case["why"] = case_sentence(case)
    refusals = dicts(con, "SELECT * FROM refusal_use WHERE run_id = ?", [run_id])
    checks_total = scalar(con, "SELECT count(*) FROM answer_citation_check WHERE run_id = ?", [run_id])
    checks = dicts(
        con,
        "SELECT question_id, passages, invalid_citations, sentences_without_citation, ok FROM answer_citation_check "
        "WHERE run_id = ? ORDER BY ok, question_id LIMIT ?",
        [run_id, limit],
    )
    for g in graders:
        g["over_tolerance"] = g["disagreement_rate"] is not None and g["disagreement_rate"] > tolerance
    return {
        "summary": summary[0] if summary else None,
        "cases": Capped(cases_, summary[0]["cases"] if summary else 0),
        "refusals": refusals[0] if refusals else None,
        "checks": Capped(checks, checks_total),
        "graders": graders,
        "tolerance": tolerance,
    }


def _production(con: duckdb.DuckDBPyConnection, run_id: str, limit: int) -> dict[str, Any] | None:
    """Production logs joined with the run; None when no log was imported."""
    if scalar(con, "SELECT count(*) FROM log_requests") == 0:
        return None
    health = dict(con.execute("SELECT status, count(*) FROM log_citation_health WHERE run_id = ? GROUP BY status",
                              [run_id]).fetchall())
    problems_total = scalar(con, "SELECT count(*) FROM log_citation_health WHERE run_id = ? "
                                 "AND status IN ('DANGLING', 'UNSUPPORTED')", [run_id])
    return {
        "daily": dicts(con, "SELECT day, requests, refusals, citations, dangling_citations, unsupported_quotes, "
                             "unresolved_citations FROM log_daily WHERE run_id = ? ORDER BY day DESC NULLS LAST LIMIT ?", [run_id, limit]),
        "replay": dicts(con, "SELECT threshold, requests, would_refuse, refused_in_production FROM log_refusal_replay "
                              "WHERE run_id = ? ORDER BY threshold", [run_id]),
        "health": [(s, int(health.get(s, 0))) for s in LOG_HEALTH],
        "problems": Capped(dicts(
            con,
            "SELECT h.source, h.request_id, h.position, h.chunk_id, h.status, h.resolution, c.quote "
            "FROM log_citation_health AS h JOIN log_citations AS c USING (source, request_id, position) "
            "WHERE h.run_id = ? AND h.status IN ('DANGLING', 'UNSUPPORTED') ORDER BY h.ts DESC, h.request_id LIMIT ?",
            [run_id, limit]), problems_total),
        "uncovered": dicts(con, "SELECT chunk_id, retrieved_count, cited_count, chunk_exists FROM log_chunk_coverage "
                                 "WHERE run_id = ? AND NOT covered_by_case "
                                 "ORDER BY retrieved_count + cited_count DESC, chunk_id LIMIT ?", [run_id, limit]),
    }


def gather(
    con: duckdb.DuckDBPyConnection, run: str, max_rows: int = DEFAULT_MAX_ROWS,
    judge_tolerance: float = DEFAULT_JUDGE_TOLERANCE, baseline: str | None = None, gates: Gates | None = None,
) -> ReportData:
    """Everything the report shows about ``run`` (a run id or ``latest``), compared with ``baseline``
    (default: the previous run of its dataset), with the verdict of ``gates`` when any are set."""
    run_id = resolve_run(con, run)
    info = dicts(con, "SELECT run_id, dataset, label, created_at, source, params FROM runs WHERE run_id = ?",
                  [run_id])[0]
    info["params"] = json.loads(info["params"])
    chosen = baseline_for(con, run_id, baseline)
    previous = chosen.run_id
    source = claim_statuses_source(con, run_id)
    history = dataset_runs(con, info["dataset"], run_id)
    # each run's metrics are read once (live, they cost a pass over its claims): the run, its baseline, its trend
    wanted: list[str] = [run_id, *([previous] if previous else []), *history]
    values = {r: metric_values(con, r) for r in dict.fromkeys(wanted)}
    counts = {status: int(values[run_id][status.lower()] or 0) for status in STATUSES}  # claims per status
    sweep = dicts(
        con,
        "SELECT threshold, correct, questions, wrongly_refused, wrongly_answered FROM threshold_sweep "
        "WHERE run_id = ? ORDER BY threshold",
        [run_id],
    )
    # cases has one row per question: their number is the run's `questions` metric (counting the view's
    # rows would run its gold search once more)
    cases_total = int(values[run_id]["questions"] or 0)
    cases = dicts(con, "SELECT question_id, expected, chunk_id FROM cases WHERE run_id = ? ORDER BY ordinal LIMIT ?",
                   [run_id, max_rows])
    changes = status_changes(con, previous, run_id) if previous else []
    metrics = metric_changes(values[previous] if previous else {}, values[run_id], removed=False)
    headline = [m for name in HEADLINE for m in metrics if m.name == name and m.value is not None]
    by_label = changed(con, previous, run_id, ("worse", "better"), max_rows) if previous else {}
    worse, better = by_label.get("worse"), by_label.get("better")
    failed_parse = unparsed_responses(con, run_id)
    unparsed = None
    if failed_parse:
        unparsed = {"ids": failed_parse[:max_rows], "count": len(failed_parse),
                    "responses": scalar(con, "SELECT count(*) FROM responses WHERE run_id = ?", [run_id]),
                    "format": info["params"].get("format", "two_line")}
    verdict = None
    if gates is not None and not gates.empty:
        verdict = check_on(con, run_id, gates.conditions, baseline, require_baseline=gates.require_baseline)
    return ReportData(
        run=info,
        previous=previous,
        baseline_why=chosen.why,
        metrics=metrics,
        headline=headline,
        summary=summary_line(info, previous, metrics, sum(counts.values()), counts["SUPPORTED"],
                             (worse.claims.total, worse.questions.total) if worse else None),
        trends=trends({r: values[r] for r in history}, history, [m.name for m in headline],
                      gates.conditions if gates is not None else ()),
        status_counts=[(s, counts[s]) for s in STATUSES],
        claims=_claims(con, run_id, source, max_rows),
        sweep=sweep,
        cases=Capped(cases, cases_total),
        changes=Capped(changes[:max_rows], len(changes)),
        retrieve_read=_retrieve_read(con, run_id, max_rows),
        axes=_axes(con, run_id, max_rows, judge_tolerance),
        production=_production(con, run_id, max_rows),
        gates=gates,
        verdict=verdict,
        worse=worse,
        better=better,
        unparsed=unparsed,
    )


@dataclass
class History:
    """A dataset's runs, oldest first, with their headline metrics, and a trend per headline metric."""

    dataset: str
    columns: list[str]
    runs: list[dict[str, Any]]
    trends: list[Trend]
    # when the runs' stored values were computed under more than one rules version: which runs under which
    rules: str | None = None


def gather_history(con: duckdb.DuckDBPyConnection, dataset: str) -> History:
    run_rows = dicts(con, "SELECT run_id, created_at, label FROM runs WHERE dataset = ? ORDER BY created_at",
                      [dataset])
    if not run_rows:
        known = [r[0] for r in con.execute("SELECT DISTINCT dataset FROM runs ORDER BY 1").fetchall()]
        raise UsageError(f"no dataset named {dataset!r} (datasets: {', '.join(map(str, known)) or 'none'})")
    # the stored runs' headline metrics in one read of metrics_history, not one query a run (a team's
    # dataset has thousands of runs)
    values = metric_values_of_runs(con, [r["run_id"] for r in run_rows], HEADLINE)
    columns = [name for name in HEADLINE if any(values[r["run_id"]].get(name) is not None for r in run_rows)]
    for row in run_rows:
        row["metrics"] = [values[row["run_id"]].get(name) for name in columns]
    recent = [r["run_id"] for r in run_rows][-TREND_RUNS:]
    return History(dataset, columns, run_rows, trends(values, recent, columns), _mixed_rules(con, dataset))


def _mixed_rules(con: duckdb.DuckDBPyConnection, dataset: str) -> str | None:
    """A sentence naming the rules each run's values were computed under, when the dataset's runs span more
    than one (a trend across them may show a change of rules); None when they share one."""
    found = con.execute(
        """SELECT CASE WHEN h.run_id IS NULL THEN $now ELSE h.rules END AS rules, count(*) AS n
           FROM runs AS r
           LEFT JOIN (SELECT run_id, min(rules_version) AS rules FROM metrics_history GROUP BY run_id) AS h
             ON h.run_id = r.run_id
           WHERE r.dataset = $dataset GROUP BY 1 ORDER BY 1 NULLS FIRST""",
        {"dataset": dataset, "now": RULES_VERSION}).fetchall()
    if len(found) < 2:
        return None
    parts = ", ".join(f"{n} under {rules_label(rules)}" for rules, n in found)
    return (f"these runs' values were computed under different rules ({parts}); `evalwh materialize --rescore` "
            "recomputes them under this release's")


