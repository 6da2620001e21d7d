"""A history that can be audited: which release and rules computed each stored row, what a run was loaded
from (its manifest), `materialize --rescore`, and the rules version held to the rules' text.

Expected values come from outside evalwh: file hashes from hashlib over the seed's files, the changes a
rescore lists from the rows this test itself altered.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from evalwh import __version__
from evalwh.app import app
from evalwh.history import materialize
from evalwh.loader import load_run
from evalwh.vocabulary import RULES_VERSION
from tests.conftest import CHAPTER3, rows
from tests.rules_fingerprint import rules_fingerprint

# rules version -> the fingerprint of the rules it names (tests/rules_fingerprint.py). A change to a view
# behind a stored value, or to the text normalisation, changes the fingerprint: then either the change
# is no rule's (record the new fingerprint under the same version) or it is (raise RULES_VERSION in
# evalwh.vocabulary and record it under the new one), so that history says which rows are comparable
RULES: dict[int, set[str]] = {
    1: {"c9846fe650303749"},
}


def test_the_rules_version_names_the_rules_the_code_holds() -> None:
    assert RULES_VERSION == max(RULES)
    assert rules_fingerprint() in RULES[RULES_VERSION], (
        f"the rules behind stored values changed (fingerprint {rules_fingerprint()}): if a status, metric or "
        "normalisation now differs, raise RULES_VERSION and record the fingerprint under it; else record it "
        "under the current version")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "wh.duckdb"
    load_run(path, CHAPTER3, run="c1")
    load_run(path, CHAPTER3, run="c2")
    materialize(path)
    return path


def test_a_run_records_each_input_file_hash_its_settings_and_the_release(db: Path) -> None:
    (manifest,) = rows(db, "SELECT manifest FROM runs WHERE run_id = 'c1'")[0]
    manifest = json.loads(manifest)
    expected = {path.name: "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
                for path in CHAPTER3.iterdir() if path.name in ("chunks.csv", "claims.csv", "questions.csv",
                                                                "retrievals.csv", "citations.csv")}
    assert {name: digest for name, digest in manifest["files"].items() if name in expected} == expected
    assert manifest["evalwh"] == __version__ and manifest["rules_version"] == RULES_VERSION
    assert manifest["settings"]["dataset"] == "chapter3"
    # readable in SQL, as a team's audit query would
    assert rows(db, "SELECT manifest->>'$.files.\"claims.csv\"' FROM runs WHERE run_id = 'c1'") == \
        [(expected["claims.csv"],)]


def test_every_stored_history_row_names_its_release_and_rules(db: Path) -> None:
    for table in ("metrics_history", "claim_status_history"):
        assert rows(db, f"SELECT DISTINCT evalwh, rules_version FROM {table}") == [(__version__, RULES_VERSION)]


def test_rescore_recomputes_rows_of_other_rules_and_lists_what_changed(db: Path) -> None:
    con = duckdb.connect(str(db))
    # c1 as an older release under unrecorded rules would have stored it: one metric and one status differ
    con.execute("UPDATE metrics_history SET evalwh = NULL, rules_version = NULL WHERE run_id = 'c1'")
    con.execute("UPDATE claim_status_history SET evalwh = '0.0.9', rules_version = 0 WHERE run_id = 'c1'")
    con.execute("UPDATE metrics_history SET value = 0.25 WHERE run_id = 'c1' AND metric = 'supported_share'")
    first = con.execute("SELECT claim_id, status FROM claim_status_history WHERE run_id = 'c1' "
                        "AND status <> 'UNCITED' ORDER BY ordinal LIMIT 1").fetchall()[0]
    con.execute("UPDATE claim_status_history SET status = 'UNCITED' WHERE run_id = 'c1' AND claim_id = ?",
                [first[0]])
    con.close()
    result = CliRunner().invoke(app, ["--db", str(db), "materialize", "--rescore", "-f", "csv"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "run_id,kind,item,stored,now,computed_by"
    assert sorted(lines[1:]) == sorted([
        "c1,metric,supported_share,0.25,0.5,\"evalwh before 0.1 (unrecorded), rules unrecorded\"",
        f"c1,status,{first[0]},UNCITED,{first[1]},\"evalwh 0.0.9, rules 0\"",
    ])
    assert "rescored 1 run(s) stored by another release or rules; 2 value(s) changed" in result.stderr
    # c1's history is now this release's and equals the live views; c2 was left as it was
    assert rows(db, "SELECT DISTINCT evalwh, rules_version FROM metrics_history") == [(__version__, RULES_VERSION)]
    assert rows(db, "SELECT metric, value FROM metrics_history WHERE run_id = 'c1' ORDER BY position") == \
        rows(db, "SELECT metric, value FROM run_metrics_long WHERE run_id = 'c1' ORDER BY position")
    assert rows(db, "SELECT claim_id, status FROM claim_status_history WHERE run_id = 'c1' ORDER BY ordinal") == \
        rows(db, "SELECT claim_id, status FROM claim_status WHERE run_id = 'c1' ORDER BY ordinal")
    again = CliRunner().invoke(app, ["--db", str(db), "materialize", "--rescore", "-f", "csv"])
    assert again.stdout.splitlines() == ["run_id,kind,item,stored,now,computed_by"]


def test_report_diff_check_and_history_say_when_values_come_from_other_rules(db: Path) -> None:
    runner = CliRunner()
    same = runner.invoke(app, ["--db", str(db), "diff", "c1", "c2", "-f", "md"])
    assert same.exit_code == 0 and "different rules" not in same.stdout + same.stderr
    con = duckdb.connect(str(db))
    con.execute("UPDATE metrics_history SET rules_version = 0 WHERE run_id = 'c1'")
    con.close()
    note = ("c1 and c2 were computed under different rules (c1: rules 0, c2: rules "
            f"{RULES_VERSION}); `evalwh materialize --rescore` recomputes them under this release's")
    diff = runner.invoke(app, ["--db", str(db), "diff", "c1", "c2", "-f", "md"])
    assert diff.exit_code == 0 and f"evalwh: {note}" in diff.stderr
    assert "**Computed under different rules:**" in diff.stdout
    check = runner.invoke(app, ["--db", str(db), "check", "-r", "c2", "--min", "supported_share=0"])
    assert check.stdout.splitlines()[0] == f"baseline: c1 (the previous run of dataset chapter3; none is blessed; {note})"
    report = runner.invoke(app, ["--db", str(db), "report", "-r", "c2", "-f", "md"])
    assert "c1 and c2 were computed under different rules" in report.stdout.replace("\\", "")
    history = runner.invoke(app, ["--db", str(db), "report", "--dataset", "chapter3", "-f", "md"])
    assert ("**Computed under different rules:** these runs' values were computed under different rules "
            f"(1 under rules 0, 1 under rules {RULES_VERSION})") in history.stdout.replace("\\", "")
