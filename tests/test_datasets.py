"""Datasets and baselines: a run is compared with the previous run of its own dataset, or with --baseline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from evalwh.app import app
from evalwh.warehouse import open_warehouse
from tests.conftest import CHAPTER3, REPO, fixed_c5_dir, rows, warehouse_at_version


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])


def interleaved(db: Path, tmp_path: Path) -> None:
    """chapter3, handbook, the fixed chapter-3 run (dataset chapter3), then three-axis: three datasets."""
    assert run(db, "seed", "chapter3").exit_code == 0
    assert run(db, "seed", "handbook").exit_code == 0
    fixed = fixed_c5_dir(tmp_path)
    assert run(db, "load", str(fixed), "--run", "fixed", "--dataset", "chapter3").exit_code == 0
    assert run(db, "seed", "three-axis").exit_code == 0


def test_each_run_belongs_to_a_dataset(db: Path, tmp_path: Path) -> None:
    interleaved(db, tmp_path)
    folder = tmp_path / "mine"
    shutil.copytree(CHAPTER3, folder)
    (folder / "run.toml").write_text('[run]\ndataset = "policy-qa"\n', encoding="utf-8")
    assert run(db, "load", str(folder)).exit_code == 0
    assert rows(db, "SELECT run_id, dataset FROM runs ORDER BY created_at") == [
        ("chapter3", "chapter3"), ("handbook", "handbook"), ("fixed", "chapter3"), ("three-axis", "three-axis"),
        ("mine", "policy-qa")]
    listed = json.loads(run(db, "runs", "--dataset", "chapter3", "-f", "json").stdout)
    assert [r["run_id"] for r in listed] == ["chapter3", "fixed"]


def test_diff_report_and_check_compare_within_the_dataset(db: Path, tmp_path: Path) -> None:
    interleaved(db, tmp_path)
    # fixed was created after handbook, but its baseline is chapter3, the previous run of its dataset
    diff = json.loads(run(db, "diff", "fixed", "-f", "json").stdout)
    changed = [(r["name"], r["a"], r["b"]) for r in diff if r["kind"] == "claim"]
    assert changed == [("c5", "UNSUPPORTED", "SUPPORTED")]
    report = run(db, "report", "--run", "fixed", "--format", "md").stdout
    assert "compared with chapter3" in report
    check = run(db, "check", "--run", "fixed", "--max-drop", "supported_share=0")
    assert check.exit_code == 0, check.stdout
    assert "supported_share drop <= 0: 0.500 -> 0.625, drop -0.125" in check.stdout
    # three-axis has no earlier run of its own: the gate holds, it is not compared with fixed
    alone = run(db, "check", "--max-drop", "refusal_accuracy=0")
    assert alone.exit_code == 0
    assert "no baseline: no earlier run of this dataset" in alone.stdout
    nothing = run(db, "diff", "-f", "csv")  # no baseline: no rows, a note, and a step that does not break CI
    assert nothing.exit_code == 0
    assert nothing.stdout == "kind,name,a,b,delta,change,detail,severity,reason\n"
    assert "no earlier run in its dataset" in nothing.stderr
    assert run(db, "--quiet", "diff").stderr == ""
    md = run(db, "diff", "-f", "md")
    assert md.exit_code == 0 and "No earlier run of its dataset" in md.stdout


def test_baseline_picks_the_run_to_compare_with(db: Path, tmp_path: Path) -> None:
    interleaved(db, tmp_path)
    check = run(db, "check", "--run", "fixed", "--baseline", "chapter3", "--max-drop", "supported_share=0")
    assert check.exit_code == 0
    # a baseline of another dataset holds other questions and claims: refused, one line, exit 2
    for command in (["check", "--run", "fixed", "--baseline", "handbook", "--max-drop", "supported_share=0"],
                    ["report", "--run", "fixed", "--baseline", "handbook", "--format", "md"]):
        other = run(db, *command)
        assert (other.exit_code, other.stdout) == (2, "")
        assert "belong to different datasets; choose a baseline of the run's own dataset" in other.stderr
    # against a run of the dataset without claims (the handbook's files as chapter3), supported_share is new:
    # reported as new, not a failure
    assert run(db, "load", str(REPO / "seeds" / "handbook"), "--run", "bare", "--dataset", "chapter3").exit_code == 0
    new = run(db, "check", "--run", "fixed", "--baseline", "bare", "--max-drop", "supported_share=0")
    assert new.exit_code == 0, new.stdout
    assert "new: the baseline has no supported_share; is 0.625" in new.stdout
    # a metric the run itself lacks still fails, as the user set the gate
    lacking = run(db, "check", "--run", "bare", "--baseline", "fixed", "--max-drop", "supported_share=0")
    assert lacking.exit_code == 1
    report = run(db, "report", "--run", "fixed", "--baseline", "bare", "--format", "md").stdout
    assert "compared with bare" in report
    diff = run(db, "diff", "fixed", "--baseline", "chapter3", "-f", "csv").stdout
    assert "claim,c5,UNSUPPORTED,SUPPORTED," in diff
    both = run(db, "diff", "chapter3", "fixed", "--baseline", "handbook")
    assert both.exit_code == 2 and "not both" in both.stderr
    itself = run(db, "check", "--run", "fixed", "--baseline", "fixed", "--max-drop", "supported_share=0")
    assert itself.exit_code == 2 and "is the run itself" in itself.stderr


def test_an_older_warehouse_gets_each_runs_dataset_from_its_source(db: Path) -> None:
    con = warehouse_at_version(db, 6)
    params = '{"thresholds": [1], "stopwords": []}'
    con.execute(f"""INSERT INTO runs VALUES ('a', now(), NULL, 'seed:handbook', '{params}'),
                                           ('b', now(), NULL, '/data/evals/policy-qa', '{params}'),
                                           ('c', now(), NULL, '/data/evals/policy-qa/', '{params}')""")
    con.close()
    with open_warehouse(db, write=True):
        pass
    assert rows(db, "SELECT run_id, dataset FROM runs ORDER BY run_id") == [
        ("a", "handbook"), ("b", "policy-qa"), ("c", "policy-qa")]


def test_a_bad_dataset_name_is_refused(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "x"
    shutil.copytree(REPO / "seeds" / "handbook", folder)
    result = run(db, "load", str(folder), "--dataset", " padded ")
    assert result.exit_code == 2
    assert "dataset must be a non-empty name" in result.stderr
    (folder / "run.toml").write_text('[run]\ndataset = ""\n', encoding="utf-8")
    result = run(db, "load", str(folder))
    assert result.exit_code == 2
    assert "run.toml, column dataset: dataset must be a non-empty name" in result.stderr
