"""`evalwh init --example DIR`: a run folder that loads as its README says, with schemas it meets."""

from __future__ import annotations

from pathlib import Path

import jsonschema
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.warehouse import open_warehouse
from tests.test_input_schema import kind_of, records


def test_the_example_loads_with_the_statuses_its_readme_names(tmp_path: Path) -> None:
    folder, db = tmp_path / "eval-data", tmp_path / "wh.duckdb"
    result = CliRunner().invoke(app, ["--db", str(db), "init", "--example", str(folder)])
    assert result.exit_code == 0 and f"wrote an example run to {folder}" in result.stderr
    assert CliRunner().invoke(app, ["--db", str(db), "load", str(folder)]).exit_code == 0
    with open_warehouse(db) as con:
        statuses = dict(con.execute("SELECT claim_id, status FROM claim_status").fetchall())
        dataset = con.execute("SELECT dataset FROM runs").fetchall()
    # by the rules: c1's quote is in leave-1 and holds its 25; c2 says 12 where its quote says 16;
    # c3's quote ("next month") is not in leave-2 ("next year"); c4 cites hr-9, which is no chunk
    assert statuses == {"c1": "SUPPORTED", "c2": "NUMBER_MISMATCH", "c3": "UNSUPPORTED", "c4": "DANGLING"}
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "c1 is SUPPORTED, c2 NUMBER_MISMATCH" in readme and "c3 UNSUPPORTED" in readme and "c4 DANGLING" in readme
    assert dataset == [("hr-handbook",)]  # from its run.toml


def test_the_example_s_next_run_shows_what_got_worse(tmp_path: Path) -> None:
    import json

    folder, db = tmp_path / "eval-data", tmp_path / "wh.duckdb"
    assert CliRunner().invoke(app, ["--db", str(db), "init", "--example", str(folder)]).exit_code == 0
    for run in (folder, folder / "next"):
        assert CliRunner().invoke(app, ["--db", str(db), "load", str(run)]).exit_code == 0
    result = CliRunner().invoke(app, ["--db", str(db), "check", "--max-regressions", "questions=0",
                                      "--max-regressions", "claims=0", "-f", "json"])
    assert result.exit_code == 1
    # by hand: q3 must be refused and is answered (5); q1 '25 days' -> '20 days' against '25 days', F1 1 ->
    # 2*1/(2+2) = 0.5 (1.5); c1 says 20 where its quote says 25: SUPPORTED -> NUMBER_MISMATCH (3)
    found = [(r["id"], r["severity"]) for r in json.loads(result.stdout)["regressions"]]
    assert found == [("q3", 5.0), ("q1", 1.5), ("c1", 3.0)]
    diff = json.loads(CliRunner().invoke(app, ["--db", str(db), "diff", "-f", "json"]).stdout)
    assert {(r["name"], r["change"]) for r in diff if r["kind"] != "metric" and r["change"] == "better"} == \
        {("q2", "better"), ("c2", "better")}


def test_every_example_record_meets_the_schema_written_beside_it(tmp_path: Path) -> None:
    folder = tmp_path / "ex"
    assert CliRunner().invoke(app, ["--db", str(tmp_path / "wh.duckdb"), "init", "--example", str(folder)]).exit_code == 0
    import json

    checked = 0
    for path in sorted(folder.glob("*.csv")):
        kind = kind_of(path)
        assert kind is not None
        schema = json.loads((folder / "schemas" / f"{kind}.schema.json").read_text(encoding="utf-8"))
        for record in records(path) or []:
            jsonschema.validate(record, schema)
            checked += 1
    assert checked == 4 + 4 + 4 + 3 + 4 + 3


def test_the_example_is_not_written_over_a_folder_in_use(tmp_path: Path) -> None:
    (tmp_path / "mine.csv").write_text("x\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "wh.duckdb"), "init", "--example", str(tmp_path)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert "not an empty folder" in result.stderr and sorted(p.name for p in tmp_path.iterdir()) == ["mine.csv"]
