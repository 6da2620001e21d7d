"""evalwh diff (golden files) and evalwh check (exit codes 0, 1 and 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.history import materialize

GOLDEN = Path(__file__).resolve().parent / "golden"


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])


@pytest.mark.parametrize("materialized", [False, True], ids=["live views", "materialised"])
def test_diff_csv_matches_golden(two_runs: Path, materialized: bool) -> None:
    if materialized:
        materialize(two_runs)
    result = run(two_runs, "diff", "base", "fixed", "--format", "csv")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (GOLDEN / "diff_base_fixed.csv").read_text(encoding="utf-8")


def test_diff_markdown_matches_golden(two_runs: Path) -> None:
    result = run(two_runs, "diff", "base", "latest", "--format", "md")
    assert result.exit_code == 0
    assert result.stdout == (GOLDEN / "diff_base_fixed.md").read_text(encoding="utf-8")


def test_diff_json_and_unknown_run(two_runs: Path) -> None:
    rows = json.loads(run(two_runs, "diff", "base", "fixed", "-f", "json").stdout)
    assert {"kind": "claim", "name": "c5", "a": "UNSUPPORTED", "b": "SUPPORTED", "delta": None,
            "change": "better", "detail": None, "severity": None, "reason": "UNSUPPORTED -> SUPPORTED"} in rows
    bad = run(two_runs, "diff", "base", "nope")
    assert bad.exit_code == 2
    assert bad.stdout == ""
    assert "no run named 'nope'" in bad.stderr


def test_check_passes_with_exit_0(two_runs: Path) -> None:
    result = run(two_runs, "check", "--min", "supported_share=0.625", "--max", "DANGLING=1",
                 "--max-drop", "pair_precision=0")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "baseline: base (the previous run of dataset chapter3; none is blessed)",
        "ok    supported_share >= 0.625: is 0.625",
        "ok    dangling <= 1: is 1",
        "ok    pair_precision drop <= 0: 0.625 -> 0.750, drop -0.125 (better)",
        "run fixed: all 3 conditions hold",
    ]
    assert result.stderr == ""


def test_check_fails_with_exit_1_and_lists_failures(two_runs: Path) -> None:
    result = run(two_runs, "check", "--run", "base", "--min", "supported_share=0.8", "--max", "DANGLING=0",
                 "--min", "pairs=8")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "baseline: none (no earlier run of dataset chapter3, and none is blessed)",
        "FAIL  supported_share >= 0.800: is 0.500",
        "ok    pairs >= 8: is 8",
        "FAIL  dangling <= 0: is 1",
        "run base: 2 of 3 conditions failed",
    ]
    assert result.stderr == "evalwh: check failed: 2 of 3 conditions\n"


def test_max_drop_compares_with_the_previous_run(two_runs: Path, tmp_path: Path) -> None:
    from evalwh.loader import load_run
    from tests.conftest import CHAPTER3

    load_run(two_runs, CHAPTER3, run="worse")  # back to 0.625 from 0.75: a drop of 0.125
    assert run(two_runs, "check", "--max-drop", "pair_precision=0.125").exit_code == 0
    failed = run(two_runs, "check", "--max-drop", "pair_precision=0.1", "-f", "json")
    assert failed.exit_code == 1
    payload = json.loads(failed.stdout)
    assert payload["ok"] is False
    assert payload["previous_run"] == "fixed"
    assert payload["conditions"][0]["previous"] == 0.75
    assert payload["conditions"][0]["actual"] == 0.625


def test_max_drop_without_previous_run_holds(db: Path) -> None:
    assert run(db, "seed").exit_code == 0
    result = run(db, "check", "--max-drop", "supported_share=0")
    assert result.exit_code == 0
    assert "no baseline: no earlier run of this dataset" in result.stdout


@pytest.mark.parametrize("args,message", [
    (["--min", "supported_share"], "expected METRIC=NUMBER"),
    (["--min", "supported_share=high"], "'high' is not a number"),
    (["--min", "supported_share=1_0"], "'1_0' is not a number"),  # float() would read ten
    (["--min", "supported_share=nan"], "'nan' is not a number"),
    (["--max", "dangling=1e400"], "the limit must be a finite number"),
    (["--max", "nonsense=1"], "unknown metric 'nonsense'"),
    (["--max-drop", "=1"], "expected METRIC=NUMBER"),
    ([], "give at least one condition"),
])
def test_malformed_condition_exits_2(two_runs: Path, args: list[str], message: str) -> None:
    result = run(two_runs, "check", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("evalwh: error: ")
    assert message in result.stderr


def test_check_markdown(two_runs: Path) -> None:
    result = run(two_runs, "check", "--min", "supported_share=0.9", "-f", "md")
    assert result.exit_code == 1
    assert "## evalwh check: run fixed failed" in result.stdout
    assert "| ❌ | supported\\_share &gt;= 0.900 | is 0.625 |" in result.stdout


def test_max_drop_counts_a_rise_as_worse_where_lower_is_better(two_runs: Path) -> None:
    # base -> fixed: unsupported fell from 1 to 0 (better); fixed -> base by --baseline: it rose by 1 (worse)
    improved = run(two_runs, "check", "--run", "fixed", "--max-drop", "unsupported=0")
    assert improved.exit_code == 0
    assert "unsupported drop <= 0: 1 -> 0, drop -1 (better)" in improved.stdout
    regressed = run(two_runs, "check", "--run", "base", "--baseline", "fixed", "--max-drop", "unsupported=0.5")
    assert regressed.exit_code == 1
    assert "FAIL  unsupported drop <= 0.500: 0 -> 1, drop 1 (worse)" in regressed.stdout
