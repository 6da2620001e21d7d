"""Each closed vocabulary of evalwh.vocabulary is the set of words the views emit: read from the models'
SQL with sqlglot (the literals a CASE can produce) and from the metric rows of every bundled seed."""

from __future__ import annotations

from pathlib import Path

import duckdb
import sqlglot
from sqlglot import exp

from evalwh import vocabulary
from evalwh.loader import load_run
from evalwh.resources import model_sources, seed_dir, seed_names


def case_outputs(view: str, column: str) -> set[str]:
    """Every string literal the CASE that computes ``column`` of ``view`` can give (nested CASEs included)."""
    tree = sqlglot.parse_one(model_sources()[view], read="duckdb")
    found: set[str] = set()
    for alias in tree.find_all(exp.Alias):
        if alias.alias == column and isinstance(alias.this, exp.Case):
            cases = [alias.this]
            while cases:
                case = cases.pop()
                for value in [*(branch.args["true"] for branch in case.args["ifs"]), case.args.get("default")]:
                    if isinstance(value, exp.Case):
                        cases.append(value)
                    elif isinstance(value, exp.Literal) and value.is_string:
                        found.add(value.this)
    assert found, f"no CASE computes {view}.{column}"
    return found


def test_claim_statuses_are_claim_status_words() -> None:
    assert set(vocabulary.STATUSES) == case_outputs("claim_status", "status")
    assert len(vocabulary.STATUSES) == 5


def test_the_failing_first_order_ranks_every_status_and_supported_last() -> None:
    con = duckdb.connect()
    ranked = con.execute(
        f"SELECT status FROM (SELECT unnest(?) AS status) ORDER BY {vocabulary.FAILING_FIRST}",
        [list(vocabulary.STATUSES)]).fetchall()
    assert [r[0] for r in ranked] == ["DANGLING", "UNCITED", "UNSUPPORTED", "NUMBER_MISMATCH", "SUPPORTED"]


def test_changes_are_the_words_both_comparison_views_emit() -> None:
    assert set(vocabulary.CHANGES) == case_outputs("question_changes", "change")
    assert set(vocabulary.CHANGES) == case_outputs("claim_changes", "change")
    con = duckdb.connect()
    ranked = con.execute(f"SELECT change FROM (SELECT unnest(?) AS change) ORDER BY {vocabulary.WORST_FIRST}",
                         [sorted(vocabulary.CHANGES)]).fetchall()
    assert tuple(r[0] for r in ranked) == vocabulary.CHANGES


def test_observed_actions_are_reader_outputs_words() -> None:
    assert set(vocabulary.OBSERVED_ACTIONS) == case_outputs("reader_outputs", "action")
    assert set(vocabulary.EXPECTED_ACTIONS) == set(vocabulary.OBSERVED_ACTIONS) - {"parse_failure"}


def test_log_health_is_log_citation_health_words() -> None:
    assert set(vocabulary.LOG_HEALTH) == case_outputs("log_citation_health", "status")


def test_log_metrics_are_the_names_log_metrics_emits() -> None:
    tree = sqlglot.parse_one(model_sources()["log_metrics"], read="duckdb")
    names = {select.expressions[2].this for select in tree.find_all(exp.Select)
             if len(select.expressions) > 2 and isinstance(select.expressions[2].unalias(), exp.Literal)}
    names = {n.this if isinstance(n, exp.Literal) else n for n in names}
    assert set(vocabulary.LOG_METRICS) == names


def test_every_metric_a_run_emits_has_one_direction(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    for name in seed_names():
        folder = seed_dir(name)
        assert folder is not None
        load_run(db, Path(str(folder)), run=name)
    con = duckdb.connect(str(db), read_only=True)
    emitted = {r[0] for r in con.execute("SELECT DISTINCT metric FROM run_metrics_long").fetchall()}
    emitted |= set(vocabulary.LOG_METRICS)
    directions = [vocabulary.HIGHER_IS_BETTER, vocabulary.LOWER_IS_BETTER, vocabulary.NEUTRAL]
    assert set().union(*directions) == emitted
    assert sum(len(d) for d in directions) == len(emitted)  # no metric in two of them
    assert set(vocabulary.HEADLINE) <= emitted
    # a claim status is also a metric: its count, lower-case
    assert {s.lower() for s in vocabulary.STATUSES} <= emitted
