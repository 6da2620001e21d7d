"""A dataset's blessed baseline: set, shown, cleared, and what report, diff, check and site compare with.

The runs, loaded in this order (the handbook seed is good, handbook-next answers u1, which must be
refused, and gets q1's number wrong; both belong to the dataset handbook):

    good      handbook        dataset handbook
    bad       handbook-next   dataset handbook
    bad-again handbook-next   dataset handbook
    c1, c2    chapter3        dataset chapter3

By hand: bad-again against its previous run (bad) changed nothing, so a gate of no worse question
holds; against the blessed run good, u1 (severity 5: a must-refuse question answered) and q1 got
worse, so the same gate fails naming them, u1 first.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.warehouse import open_warehouse
from evalwh.warehouse.runs import Baseline, baseline_for
from tests.conftest import CHAPTER3, REPO, rows

HANDBOOK = REPO / "seeds" / "handbook"
HANDBOOK_NEXT = REPO / "seeds" / "handbook-next"


def cli(db: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "wh.duckdb"
    load_run(path, HANDBOOK, run="good")
    load_run(path, HANDBOOK_NEXT, run="bad")
    load_run(path, HANDBOOK_NEXT, run="bad-again")
    load_run(path, CHAPTER3, run="c1")
    load_run(path, CHAPTER3, run="c2")
    return path


def chosen(db: Path, run_id: str, baseline: str | None = None) -> Baseline:
    with open_warehouse(db, udfs=False) as con:
        return baseline_for(con, run_id, baseline)


def test_without_a_blessing_each_run_is_compared_with_its_previous_run(db: Path) -> None:
    assert chosen(db, "bad-again") == Baseline("bad", "the previous run of dataset handbook; none is blessed")
    assert chosen(db, "good") == Baseline(None, "no earlier run of dataset handbook, and none is blessed")
    assert chosen(db, "c2") == Baseline("c1", "the previous run of dataset chapter3; none is blessed")


def test_a_blessed_run_is_every_other_runs_baseline_in_its_dataset_only(db: Path) -> None:
    code, out, err = cli(db, "baseline", "set", "good", "--note", "approved for 2.3")
    assert (code, out, err) == (0, "", "evalwh: baseline of dataset handbook: good (was: each run's previous run)\n")
    blessed = "the blessed baseline of dataset handbook"
    assert chosen(db, "bad-again") == Baseline("good", blessed)
    assert chosen(db, "bad") == Baseline("good", blessed)
    assert chosen(db, "good") == Baseline(
        None, "the run itself is the blessed baseline of dataset handbook, and it has no earlier run")
    assert chosen(db, "c2") == Baseline("c1", "the previous run of dataset chapter3; none is blessed")
    # --baseline still names another run
    assert chosen(db, "bad-again", "bad") == Baseline("bad", "given with --baseline")
    # a later run blessed: the earlier one is compared with it too, and it with its previous run
    assert cli(db, "baseline", "set", "bad")[0] == 0
    assert chosen(db, "good") == Baseline("bad", blessed)
    assert chosen(db, "bad") == Baseline("good", "the previous run; the run itself is the blessed baseline of "
                                                 "dataset handbook")


def test_the_gate_and_the_report_compare_with_the_blessed_run_and_say_so(db: Path) -> None:
    gate = ("check", "--run", "bad-again", "--max-regressions", "questions=0")
    code, out, _ = cli(db, *gate)
    assert code == 0 and out.splitlines()[0] == "baseline: bad (the previous run of dataset handbook; none is blessed)"
    assert cli(db, "baseline", "set", "good")[0] == 0
    code, out, err = cli(db, *gate)
    assert code == 1 and err == "evalwh: check failed: 1 of 1 condition\n"
    assert out.splitlines()[:4] == [
        "baseline: good (the blessed baseline of dataset handbook)",
        "FAIL  questions worse <= 0: 2 questions got worse",
        "      u1 (severity 5): outcome correct action -> wrong action (expected refuse, the response did answer)",
        "      q1 (severity 1.182): f1 0.364 -> 0.182",
    ]
    payload = json.loads(cli(db, *gate, "-f", "json")[1])
    assert (payload["previous_run"], payload["baseline_why"]) == ("good", "the blessed baseline of dataset handbook")
    report = cli(db, "report", "--run", "bad-again", "-f", "md")[1]
    assert "· compared with good (the blessed baseline of dataset handbook)" in report
    diff = json.loads(cli(db, "diff", "bad-again", "-f", "json")[1])
    assert {(r["name"], r["change"]) for r in diff if r["kind"] == "question" and r["change"] == "worse"} == \
        {("u1", "worse"), ("q1", "worse")}
    # cleared: back to the previous run, where nothing changed
    code, _, err = cli(db, "baseline", "clear", "handbook")
    assert (code, err) == (0, "evalwh: baseline of dataset handbook cleared (was good): each run is compared "
                              "with its previous run\n")
    assert cli(db, *gate)[0] == 0


def test_show_lists_each_datasets_latest_blessing_and_the_log_keeps_every_one(db: Path) -> None:
    assert cli(db, "baseline", "show", "-f", "csv")[1] == "dataset,run_id,set_at,note\n"
    assert cli(db, "baseline", "set", "good", "--note", "first")[0] == 0
    assert cli(db, "baseline", "set", "c1")[0] == 0
    assert cli(db, "baseline", "set", "bad", "--note", "second")[0] == 0
    code, out, err = cli(db, "baseline", "set", "bad")
    assert (code, err) == (0, "evalwh: bad is already the baseline of dataset handbook; nothing written\n")
    shown = json.loads(cli(db, "baseline", "show", "-f", "json")[1])
    assert [(r["dataset"], r["run_id"], r["note"]) for r in shown] == [("chapter3", "c1", None),
                                                                      ("handbook", "bad", "second")]
    assert [r["run_id"] for r in json.loads(cli(db, "baseline", "show", "--dataset", "handbook", "-f", "json")[1])] \
        == ["bad"]
    assert cli(db, "baseline", "clear", "handbook")[0] == 0
    code, _, err = cli(db, "baseline", "clear", "handbook")
    assert (code, err) == (0, "evalwh: dataset handbook has no blessed baseline; nothing written\n")
    assert rows(db, "SELECT dataset, run_id FROM baselines") == [("chapter3", "c1")]
    assert rows(db, "SELECT dataset, baseline_run_id, note FROM baseline_log ORDER BY set_at") == [
        ("handbook", "good", "first"), ("chapter3", "c1", None), ("handbook", "bad", "second"),
        ("handbook", None, None)]


def test_a_run_or_dataset_that_is_not_there_is_a_usage_error_and_writes_nothing(db: Path) -> None:
    before = rows(db, "SELECT count(*) FROM baseline_log")
    code, out, err = cli(db, "baseline", "set", "nightly")
    assert (code, out) == (2, "") and err.startswith("evalwh: error: ") and "nightly" in err
    code, out, err = cli(db, "baseline", "clear", "hr-policy")
    assert (code, out, err) == (2, "", "evalwh: error: no dataset 'hr-policy' in the warehouse (datasets: chapter3, "
                                       "handbook)\n")
    assert rows(db, "SELECT count(*) FROM baseline_log") == before == [(0,)]


def test_replacing_the_blessed_run_keeps_its_blessing(db: Path) -> None:
    assert cli(db, "baseline", "set", "good")[0] == 0
    load_run(db, HANDBOOK, run="good", replace=True)
    assert rows(db, "SELECT run_id FROM baselines WHERE dataset = 'handbook'") == [("good",)]
