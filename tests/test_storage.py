"""A new warehouse file is written in DuckDB 1.4's storage format, which clients from 1.4 on read;
init rewrites older files in it, and a DuckDB file of the user's own gets a warehouse beside its tables.

.ci/run also opens the seeds' warehouse with DuckDB 1.4.4 itself and queries every view.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from evalwh.loader import load_run
from tests.conftest import CHAPTER3, DUCKDB_1


def test_new_file_uses_the_1_4_storage_format(db: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{db}' AS w (READ_ONLY)")
        tags = con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'w'").fetchone()[0]
    finally:
        con.close()
    assert tags.get("storage_version") == "v1.4.0+"


@pytest.mark.skipif(DUCKDB_1, reason="DuckDB 1.4 writes no format newer than its own")
def test_init_rewrites_a_newer_format_file_in_the_oldest_format(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from evalwh.app.commands import app
    from evalwh.warehouse import STORAGE_VERSION, storage_version

    runner = CliRunner()
    old = tmp_path / "old.duckdb"
    assert runner.invoke(app, ["--db", str(old), "seed"]).exit_code == 0
    # the same warehouse in DuckDB's newest storage format, as an older evalwh wrote it
    newer = tmp_path / "newer.duckdb"
    con = duckdb.connect()
    con.execute(f"ATTACH '{old}' AS a (READ_ONLY)")
    con.execute(f"ATTACH '{newer}' AS b")
    con.execute("COPY FROM DATABASE a TO b")
    con.close()
    assert storage_version(newer) != f"{STORAGE_VERSION}+"
    before = runner.invoke(app, ["--db", str(old), "status", "-f", "csv"]).stdout
    result = runner.invoke(app, ["--db", str(newer), "init"])
    assert result.exit_code == 0, result.stderr
    assert f"rewrote {newer} in DuckDB's {STORAGE_VERSION} storage format" in result.stderr
    assert storage_version(newer) == f"{STORAGE_VERSION}+"
    assert runner.invoke(app, ["--db", str(newer), "status", "-f", "csv"]).stdout == before
    again = runner.invoke(app, ["--db", str(newer), "init"])
    assert "rewrote" not in again.stderr


def test_init_leaves_a_file_it_cannot_use_as_it_was(tmp_path: Path) -> None:
    """A DuckDB file of the user's own, in DuckDB's newest format, holding a view named like an evalwh
    table: init refuses it (exit 3, one line) before the format rewrite or the schema touch it."""
    from typer.testing import CliRunner

    from evalwh.app.commands import app

    own = tmp_path / "own.duckdb"
    con = duckdb.connect(str(own))
    con.execute("CREATE VIEW claims AS SELECT 1 AS x")
    con.close()
    before = own.read_bytes()
    result = CliRunner().invoke(app, ["--db", str(own), "init"])
    assert (result.exit_code, result.stdout) == (3, "")
    assert result.stderr.startswith(f"evalwh: error: {own}: is no evalwh warehouse and already holds something by "
                                    "a name evalwh's schema needs (Catalog Error: ")
    assert 'with name "claims" already exists' in result.stderr  # DuckDB 1.4 calls the view a table here
    assert result.stderr.endswith("; choose another --db\n") and result.stderr.count("\n") == 1
    assert own.read_bytes() == before
    read = CliRunner().invoke(app, ["--db", str(own), "runs"])
    assert (read.exit_code, read.stderr) == (3, f"evalwh: error: {own}: a DuckDB file that holds no evalwh warehouse "
                                                "yet; create one in it with `evalwh init` or `evalwh load DIR`\n")


def test_init_adds_a_warehouse_beside_the_users_own_tables(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from evalwh.app.commands import app
    from evalwh.warehouse import STORAGE_VERSION, storage_version

    own = tmp_path / "own.duckdb"
    con = duckdb.connect(str(own))
    con.execute("CREATE TABLE mine AS SELECT 42 AS x")
    con.close()
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(own), "init"]).exit_code == 0
    # DuckDB 1.4 writes a file of its own in the older v1.0.0 format, which init leaves as it is
    assert storage_version(own) == ("v1.0.0+" if DUCKDB_1 else f"{STORAGE_VERSION}+")
    assert runner.invoke(app, ["--db", str(own), "seed"]).exit_code == 0
    assert runner.invoke(app, ["--db", str(own), "sql", "SELECT x FROM mine", "-f", "csv"]).stdout == "x\n42\n"
    assert runner.invoke(app, ["--db", str(own), "evidence"]).stdout.startswith("t1_c1: SUPPORTED\n")


@pytest.mark.skipif(DUCKDB_1, reason="DuckDB 1.4 cannot spill this aggregate under the cap")
def test_spilled_rows_go_to_the_system_temporary_directory(tmp_path: Path, monkeypatch) -> None:
    """Past its memory cap DuckDB spills; the files go to the system's temporary directory, never the
    working directory, which may not be writable."""
    from evalwh.warehouse import new_connection

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    con = new_connection()
    try:
        con.execute("SET memory_limit = '64MB'")
        con.execute("SET threads = 1")
        sums = con.execute(
            "SELECT count(*), sum(n) FROM (SELECT i % 2000000 AS k, count(*) AS n FROM range(6000000) AS r(i) "
            "GROUP BY k ORDER BY k)"
        ).fetchone()
        assert sums == (2_000_000, 6_000_000)
        assert list(work.iterdir()) == []
    finally:
        con.close()
