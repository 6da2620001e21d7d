"""The closed vocabularies: every word the views emit that Python, the templates and the gate rely on.

Claim statuses and their failing-first order, expected and observed actions, log citation health,
metric names with the direction that is better, and the headline set a report leads with. One
module holds them, and ``tests/test_vocabulary.py`` proves each set equal to the words the views
emit, so a renamed status or a new metric cannot drift between SQL and Python.

A rise in ``supported_share`` is good news; a rise in ``unsupported`` or ``log_dangling_rate`` is bad
news; a rise in ``claims`` is neither. Reports colour a change by this table, ``diff`` labels each
change better or worse, and ``check --max-drop`` measures how much a metric got *worse*: a fall for
the first kind, a rise for the second.
"""

from __future__ import annotations

from typing import Literal

# the run name that means the most recently created run (every --run option's default)
LATEST = "latest"

# The version of the rules the views and the stored normalisations apply: it changes only when a rule
# does (a status, a metric, a normalisation; tests/test_rules_version.py holds it to the rules' text), so
# a history row's rules_version says whether two stored values are comparable
RULES_VERSION = 1
# the production-log formats ``logs import`` reads (sql/logformats/<format>_*.sql)
LOG_FORMATS: tuple[str, ...] = ("evalwh", "openinference", "otlp", "anthropic", "ragas", "deepeval")
# claim statuses (claim_status.status), in the order a report lists them
STATUSES: tuple[str, ...] = ("SUPPORTED", "NUMBER_MISMATCH", "UNSUPPORTED", "DANGLING", "UNCITED")
# the order the failing claims come in, worst first, as SQL over a ``status`` column
FAILING_FIRST = ("CASE status WHEN 'DANGLING' THEN 1 WHEN 'UNCITED' THEN 2 WHEN 'UNSUPPORTED' THEN 3 "
                 "WHEN 'NUMBER_MISMATCH' THEN 4 ELSE 5 END")
# how a question or claim changed from a baseline run (question_changes.change, claim_changes.change),
# worst first, and that order as SQL over a ``change`` column
CHANGES: tuple[str, ...] = ("worse", "removed", "new", "better", "same")
WORST_FIRST = ("CASE change WHEN 'worse' THEN 1 WHEN 'removed' THEN 2 WHEN 'new' THEN 3 WHEN 'better' THEN 4 "
               "ELSE 5 END")
# what a question expects (questions.expected) and what a response did (question_outcomes.action)
EXPECTED_ACTIONS: tuple[str, ...] = ("answer", "refuse", "flag_premise")
OBSERVED_ACTIONS: tuple[str, ...] = (*EXPECTED_ACTIONS, "parse_failure")
# a production citation's health (log_citation_health.status)
LOG_HEALTH: tuple[str, ...] = ("SUPPORTED", "UNSUPPORTED", "DANGLING", "UNCHECKED", "UNRESOLVED")
# the production-log metrics of models/log_metrics.sql: known names even before any log is imported
LOG_METRICS: tuple[str, ...] = (
    "log_requests", "log_refusal_rate", "log_dangling_rate", "log_unsupported_rate",
    "log_dangling_rate_last_day", "log_unsupported_rate_last_day", "log_unresolved_rate",
)

Direction = Literal["higher", "lower", "neutral"]

HIGHER_IS_BETTER: frozenset[str] = frozenset({
    "supported", "supported_share", "sound_pairs", "pair_precision", "best_correct", "recall_at_k",
    "action_accuracy", "mean_em", "mean_f1", "retrieval_accuracy", "citation_accuracy", "refusal_accuracy",
})
LOWER_IS_BETTER: frozenset[str] = frozenset({
    "uncited", "dangling", "unsupported", "number_mismatch", "held_for_review", "refusals_wrong",
    "refusals_missed", "judge_disagreement_rate", "log_dangling_rate", "log_unsupported_rate",
    "log_dangling_rate_last_day", "log_unsupported_rate_last_day", "log_unresolved_rate",
})
# sizes and rates with no better side
NEUTRAL: frozenset[str] = frozenset({"claims", "pairs", "questions", "log_requests", "log_refusal_rate"})

# the figures a report leads with, where the run has them, in this order
HEADLINE: tuple[str, ...] = ("supported_share", "pair_precision", "best_correct", "recall_at_k", "mean_em", "mean_f1",
                             "action_accuracy", "refusal_accuracy")


def direction(metric: str) -> Direction:
    """Whether a higher or a lower value of ``metric`` is better, or neither."""
    if metric in HIGHER_IS_BETTER:
        return "higher"
    if metric in LOWER_IS_BETTER:
        return "lower"
    return "neutral"


def verdict(metric: str, delta: float | None) -> str:
    """``better``, ``worse``, ``same`` or ``""`` (no change to judge, or a metric with no better side)."""
    if delta is None or direction(metric) == "neutral":
        return ""
    if abs(delta) < 1e-12:
        return "same"
    return "better" if (delta > 0) == (direction(metric) == "higher") else "worse"


def worsening(metric: str, before: float, after: float) -> float:
    """How much ``metric`` got worse from ``before`` to ``after`` (negative when it improved):
    a fall for a higher-is-better or neutral metric, a rise for a lower-is-better one."""
    return after - before if direction(metric) == "lower" else before - after

# the report's defaults, here so the command line can show them without importing the report code
REPORT_MAX_ROWS = 200          # the longest table on a page
REPORT_JUDGE_TOLERANCE = 0.1   # a judge disagreeing with the hand grades more often than this is flagged

# a plain ASCII decimal number (0.8, -1, 1e-3): what a gate's limit, a threshold and an input score are
# written as; int() and DuckDB's casts would also read 1_0 and other scripts' digits. Python's re and RE2 both
# read the pattern
PLAIN_DECIMAL = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
