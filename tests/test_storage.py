"""A new warehouse file is written in DuckDB 1.4's storage format, which clients from 1.4 on read.

.ci/run also opens the seeds' warehouse with DuckDB 1.4.4 itself and queries every view.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from evalwh.loader import load_run

from tests.conftest import CHAPTER3


def test_new_file_uses_the_1_4_storage_format(db: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{db}' AS w (READ_ONLY)")
        tags = con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'w'").fetchone()[0]
    finally:
        con.close()
    assert tags.get("storage_version") == "v1.4.0+"


def test_init_rewrites_a_newer_format_file_in_the_oldest_format(tmp_path: Path) -> None:
    from evalwh.warehouse import STORAGE_VERSION, storage_version
    from typer.testing import CliRunner

    from evalwh.app import app

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
