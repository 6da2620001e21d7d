"""`evalwh copy SRC DST` between two warehouse files: every table's rows arrive, nothing twice, all or nothing.

(The same copy into and out of a lake is in tests/test_lake.py.) What must arrive is read from the source
table by table, independently of the copy: each base table's rows, compared with EXCEPT ALL both ways.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.logs import import_logs
from evalwh.warehouse.baselines import set_baseline
from evalwh.warehouse.copying import NOT_COPIED, copy_warehouse
from tests.conftest import CHAPTER3, REPO

HANDBOOK = REPO / "seeds" / "handbook"
LOGS = REPO / "tests" / "logs"


def tables(path: Path) -> list[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                                          "ORDER BY 1").fetchall()]
    finally:
        con.close()


def differences(a: Path, b: Path, table: str) -> tuple[int, int]:
    """Rows of ``table`` in a and not b, and in b and not a (EXCEPT ALL, so duplicates count)."""
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{a}' AS a (READ_ONLY)")
        con.execute(f"ATTACH '{b}' AS b (READ_ONLY)")
        one = con.execute(f"SELECT count(*) FROM (FROM a.{table} EXCEPT ALL FROM b.{table})").fetchall()[0][0]
        two = con.execute(f"SELECT count(*) FROM (FROM b.{table} EXCEPT ALL FROM a.{table})").fetchall()[0][0]
        return one, two
    finally:
        con.close()


def count(path: Path, sql: str) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return int(con.execute(sql).fetchall()[0][0])
    finally:
        con.close()


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "source.duckdb"
    load_run(path, CHAPTER3, run="c1")
    load_run(path, HANDBOOK, run="h1")
    load_run(path, HANDBOOK, run="h2")
    set_baseline(path, "h1", note="approved")
    import_logs(path, [LOGS / "evalwh.jsonl"])
    from evalwh.history import materialize

    materialize(path)
    return path


def test_a_copy_into_a_new_file_holds_every_row_of_every_table(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.duckdb"
    result = copy_warehouse(source, target)
    assert result.runs == ["c1", "h1", "h2"]
    assert result.log_batches == 1 and result.baseline_settings == 1
    assert result.history_rows == count(source, "SELECT (SELECT count(*) FROM metrics_history) + "
                                                "(SELECT count(*) FROM claim_status_history)")
    for table in tables(source):
        if table not in NOT_COPIED:
            assert differences(source, target, table) == (0, 0), table
    # a table a schema step adds is copied or listed as not copied: nothing is left behind unseen
    assert set(result.rows) | set(NOT_COPIED) == set(tables(source))


def test_a_copy_into_a_warehouse_adds_to_its_runs_and_stores_a_text_once(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.duckdb"
    load_run(target, CHAPTER3, run="other")  # the same chunk texts as c1
    texts = count(target, "SELECT count(*) FROM chunk_texts")
    copy_warehouse(source, target)
    assert count(target, "SELECT count(*) FROM runs") == 4
    # the chapter-3 texts were there; only the handbook's are new
    assert count(target, "SELECT count(*) FROM chunk_texts") == texts + count(
        source, "SELECT count(*) FROM chunk_texts WHERE text_hash IN (SELECT text_hash FROM chunk_refs "
                "WHERE run_id = 'h1')")
    assert count(target, "SELECT count(*) - count(DISTINCT text_hash) FROM chunk_texts") == 0


def test_a_run_id_the_target_holds_is_refused_and_nothing_is_copied(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.duckdb"
    load_run(target, HANDBOOK, run="h2")
    before = {t: count(target, f"SELECT count(*) FROM {t}") for t in tables(target)}
    result = CliRunner().invoke(app, ["copy", str(source), str(target)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.strip() == (f"evalwh: error: {target}: already holds run(s) h2; nothing was copied "
                                     "(a copy never merges runs)")
    assert {t: count(target, f"SELECT count(*) FROM {t}") for t in tables(target)} == before


def test_copy_refuses_itself_a_missing_source_and_a_data_path_for_a_file(source: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    same = runner.invoke(app, ["copy", str(source), str(source)])
    assert (same.exit_code, same.stderr.strip()) == (2, f"evalwh: error: {source}: a warehouse cannot be copied "
                                                        "into itself")
    missing = runner.invoke(app, ["copy", str(tmp_path / "none.duckdb"), str(tmp_path / "t.duckdb")])
    assert missing.exit_code == 3 and "none.duckdb: no warehouse here" in missing.stderr
    assert not (tmp_path / "t.duckdb").exists()
    pointless = runner.invoke(app, ["--data-path", str(tmp_path / "d"), "copy", str(source),
                                    str(tmp_path / "t.duckdb")])
    assert pointless.exit_code == 2
    assert "--data-path is for a lake" in pointless.stderr
    assert not (tmp_path / "t.duckdb").exists()


def test_evalwh_data_path_in_the_environment_leaves_a_file_alone(tmp_path: Path) -> None:
    env = {"EVALWH_DATA_PATH": str(tmp_path / "lake-data")}
    done = CliRunner().invoke(app, ["--db", str(tmp_path / "f.duckdb"), "-q", "seed", "chapter3"], env=env)
    assert done.exit_code == 0, done.stderr
    assert not (tmp_path / "lake-data").exists()
