"""The sweep over the retrievers' own scores (score_sweep, load --score-thresholds), worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.warehouse import open_warehouse
from tests.test_changes import BASE_ANSWERS, BASE_CLAIMS, run_folder, write_csv

# best score per question: q1 0.93, q2 0.41, q3 0.12 (expects a refusal), q4 0.8 (its rank-2 chunk
# scores higher than its rank-1 one: the best score is the largest, whatever the rank)
RETRIEVALS = [("q1", "h1", "1", "0.93"), ("q2", "h2", "1", "0.41"), ("q3", "h1", "1", "0.12"),
              ("q4", "h3", "1", "0.55"), ("q4", "h1", "2", "0.8")]
# answer when best >= t: by hand for each threshold
EXPECTED = {
    0.1: (3, [], ["q3"]),            # 0.12 >= 0.1: q3 answered though it expects a refusal
    0.2: (4, [], []),                # everything decided right
    0.5: (3, ["q2"], []),            # 0.41 < 0.5: q2 refused
    0.9: (2, ["q2", "q4"], []),      # only q1 (0.93) answered
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    folder = run_folder(tmp_path, "scored", BASE_ANSWERS, BASE_CLAIMS)
    write_csv(folder / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"], RETRIEVALS)
    path = tmp_path / "wh.duckdb"
    load_run(path, folder, score_thresholds=[0.9, 0.1, 0.5, 0.2, 0.5])
    return path


def test_the_score_sweep_decides_each_threshold_by_the_best_score(db: Path) -> None:
    with open_warehouse(db) as con:
        rows = con.execute("SELECT threshold, correct, questions, wrongly_refused, wrongly_answered "
                           "FROM score_sweep ORDER BY threshold").fetchall()
    assert [(t, c, q) for t, c, q, _, _ in rows] == [(t, EXPECTED[t][0], 4) for t in sorted(EXPECTED)]
    assert {t: (r, a) for t, _, _, r, a in rows} == {t: (e[1], e[2]) for t, e in EXPECTED.items()}


def test_sweep_scores_prints_it_and_a_run_without_score_thresholds_has_none(db: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--db", str(db), "sweep", "--scores", "-f", "json"])
    assert result.exit_code == 0
    printed = json.loads(result.stdout)
    assert [(r["threshold"], r["correct"], r["wrongly_refused"], r["wrongly_answered"]) for r in printed] == \
        [(t, *EXPECTED[t]) for t in sorted(EXPECTED)]
    load_run(db, run_folder(tmp_path, "plain", BASE_ANSWERS, BASE_CLAIMS))
    with open_warehouse(db) as con:
        assert con.execute("SELECT count(*) FROM score_sweep WHERE run_id = 'plain'").fetchone() == (0,)


@pytest.mark.parametrize("given", ["1_0", "١,٢", "０.５", "nan", "0.5,,x", ""])
def test_a_score_threshold_that_is_not_a_plain_decimal_is_refused(tmp_path: Path, given: str) -> None:
    folder = run_folder(tmp_path, "r", BASE_ANSWERS, BASE_CLAIMS)
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "wh.duckdb"), "load", str(folder),
                                      "--score-thresholds", given])
    assert (result.exit_code, result.stdout) == (2, "")
    assert "--score-thresholds takes plain decimal numbers" in result.stderr
    assert not (tmp_path / "wh.duckdb").exists()


@pytest.mark.parametrize("given", ["1_0", "١,٢", "１,２"])
def test_a_threshold_in_other_digits_is_refused(tmp_path: Path, given: str) -> None:
    folder = run_folder(tmp_path, "r", BASE_ANSWERS, BASE_CLAIMS)
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "wh.duckdb"), "load", str(folder), "--thresholds", given])
    assert result.exit_code == 2 and "--thresholds takes whole numbers" in result.stderr
