"""Shared fixtures: temporary warehouses, run folders written from Python data, the CLI runner."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import duckdb
import pytest
from hypothesis import settings
from typer.testing import CliRunner

from evalwh.app import app

# CI replays the same generated examples on every run; locally each run explores new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
# DuckDB 1.4 (the oldest release evalwh supports) differs from 2 in what some tests look at: its
# Python layer imports numpy for any query with parameters, its JSON reader refuses a byte order mark,
# its query plans, storage tags and compression differ
DUCKDB_1 = duckdb.__version__.startswith("1.")
CHAPTER3 = REPO / "seeds" / "chapter3"
EXPECTED = Path(__file__).resolve().parent / "expected"


def write_table(path: Path, header: list[str], rows: Sequence[Sequence[Any]]) -> Path:
    """Write rows as CSV, TSV (no quoting: no value may hold a tab or line break) or JSONL, chosen by the
    file's suffix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        with path.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(dict(zip(header, row, strict=True)), ensure_ascii=False) + "\n")
    elif path.suffix == ".tsv":
        # TSV has no quoting: a field is the text between tabs, and none may hold a tab or line break
        values = [header, *([str(v) for v in row] for row in rows)]
        assert not any(ch in v for row in values for v in row for ch in "\t\n\r"), "TSV cannot carry this value"
        path.write_text("".join("\t".join(row) + "\n" for row in values), encoding="utf-8")
    else:
        delim = ","
        # csv leaves a lone carriage return unquoted, which no reader can tell from a line break
        bare_cr = any("\r" in str(v) for row in rows for v in row)
        quoting: Literal[0, 1, 2, 3] = csv.QUOTE_ALL if bare_cr else csv.QUOTE_MINIMAL
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, delimiter=delim, lineterminator="\n", quoting=quoting)
            writer.writerow(header)
            writer.writerows(rows)
    return path


@pytest.fixture(autouse=True, scope="session")
def template_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache of empty warehouses (evalwh.warehouse.template) for the whole session, never the user's."""
    from evalwh.warehouse.template import CACHE_ENV

    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(folder))
        yield folder


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "wh.duckdb"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def cli(runner: CliRunner, db: Path) -> Callable[..., object]:
    """Invoke evalwh against the test warehouse; returns the Result (stdout, stderr, exit_code)."""

    def invoke(*args: str):
        return runner.invoke(app, ["--db", str(db), *args])

    return invoke


def snapshot(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table in a warehouse, for before/after comparisons."""
    if not path.exists():
        return {}
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        return {t: sorted(repr(row) for row in con.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables}
    finally:
        con.close()


def fixed_c5_dir(tmp_path: Path) -> Path:
    """The chapter-3 seed with claim c5 quoting what network-1 really says, so c5 becomes SUPPORTED."""
    import shutil

    folder = tmp_path / "fixed"
    shutil.copytree(CHAPTER3, folder)
    claims = folder / "claims.csv"
    text = claims.read_text(encoding="utf-8")
    claims.write_text(text.replace("weekly.,changes weekly", "weekly.,changes on the first Monday"), encoding="utf-8")
    return folder


@pytest.fixture
def two_runs(db: Path, tmp_path: Path) -> Path:
    """A warehouse with run 'base' (the chapter-3 seed) and, created after it, run 'fixed': both of dataset
    'chapter3', so 'fixed' is compared with 'base'."""
    from evalwh.loader import load_run

    load_run(db, CHAPTER3, run="base", source="seed:chapter3")
    load_run(db, fixed_c5_dir(tmp_path), run="fixed", label="c5 quotes network-1", source="fixture:fixed",
             default_dataset="chapter3")
    return db


def rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    """Every row of a query on a warehouse file, opened read-only with plain DuckDB (no evalwh UDFs)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def warehouse_at_version(db: Path, version: int) -> duckdb.DuckDBPyConnection:
    """A connection to a new file holding the schema as of ``version`` (an older evalwh's warehouse),
    each step recorded; the caller adds rows and closes it."""
    from evalwh.resources import schema_steps
    from evalwh.text.textnorm import register_udfs

    con = duckdb.connect(str(db))
    register_udfs(con)  # the older steps build their tables with the text functions
    for step, _, ddl in schema_steps():
        if step <= version:
            con.execute(ddl)
            con.execute("INSERT INTO schema_version VALUES (?, now(), 'old')", [step])
    return con
