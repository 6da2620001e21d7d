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
