"""`evalwh sql` runs queries only: it writes, reads and lists nothing outside the warehouse.

DuckDB lets a query reach its own temporary directory even with external access off, and EXPLAIN
ANALYZE runs the statement it explains. Each attack below must fail with exit 2, one line on stderr,
nothing on stdout, and leave every file of the system's temporary directory (here a private one the
test points tempfile at) as it was, with nothing added.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest


@pytest.fixture
def system_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The temporary directory evalwh's connections spill to, holding a text, a CSV and a Parquet file."""
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    (folder / "x.txt").write_text("secret\n", encoding="utf-8")
    (folder / "x.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    duckdb.execute(f"COPY (SELECT 42 AS answer) TO '{folder / 'x.parquet'}' (FORMAT parquet)")
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


def attacks(tmp: Path) -> list[str]:
    return [
        f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{tmp}/x.csv'",
        f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{tmp}/new.csv'",
        f"EXPLAIN ANALYZE COPY (SELECT 1) TO '{tmp}/x.parquet' (FORMAT parquet)",
        f"/* a comment */ explain (analyze, format json) copy (SELECT 1) TO '{tmp}/x.csv'",
        f"EXPLAIN COPY (SELECT 1) TO '{tmp}/x.csv'",
        "EXPLAIN ANALYZE DELETE FROM runs",
        f"EXPLAIN ANALYZE ATTACH '{tmp}/w.duckdb'",
        f"SELECT * FROM read_text('{tmp}/x.txt')",
        f"SELECT * FROM glob('{tmp}/**')",
        f"SELECT * FROM glob('{tmp}/*')",
        f"SELECT * FROM '{tmp}/x.csv'",
        f"SELECT * FROM read_parquet('{tmp}/x.parquet')",
        f"SELECT * FROM read_blob('{tmp}/x.txt')",
        f"EXPLAIN ANALYZE SELECT * FROM read_text('{tmp}/x.txt')",
    ]


def test_attacks_fail_and_touch_nothing(cli: Callable, system_tmp: Path) -> None:
    assert cli("seed").exit_code == 0
    before = digest(system_tmp)
    for statement in attacks(system_tmp):
        result = cli("sql", statement, "-f", "csv")
        assert result.exit_code == 2, statement
        assert result.stdout == "", statement
        assert result.stderr.startswith("evalwh: error: ") and len(result.stderr.splitlines()) == 1, statement
        assert digest(system_tmp) == before, statement


def test_queries_still_run(cli: Callable, system_tmp: Path) -> None:
    assert cli("seed").exit_code == 0
    pivot = cli("sql", "PIVOT (SELECT status FROM claim_status) ON status USING count(*)", "-f", "csv")
    assert pivot.exit_code == 0, pivot.stderr
    # the chapter's eight claims: 4 SUPPORTED and one of each other status, one column per status
    assert pivot.stdout.splitlines() == ["DANGLING,NUMBER_MISMATCH,SUPPORTED,UNCITED,UNSUPPORTED", "1,1,4,1,1"]
    wider = cli("sql", "PIVOT_WIDER (SELECT status FROM claim_status) ON status USING count(*)", "-f", "csv")
    assert wider.stdout == pivot.stdout
    unpivot = cli("sql", "UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b INTO NAME k VALUE v", "-f", "csv")
    assert unpivot.stdout.splitlines() == ["k,v", "a,1", "b,2"]
    for statement in ("EXPLAIN SELECT 1", "EXPLAIN ANALYZE SELECT count(*) FROM claim_status",
                      "/* c */ EXPLAIN (ANALYZE, FORMAT json) SELECT 1", "EXPLAIN PIVOT claim_status ON status USING count(*)"):
        result = cli("sql", statement, "-f", "csv")
        assert result.exit_code == 0, (statement, result.stderr)
        assert result.stdout.startswith("explain_key,explain_value"), statement
    assert digest(system_tmp) == digest(system_tmp) and sorted(p.name for p in system_tmp.iterdir()) == [
        "x.csv", "x.parquet", "x.txt"]  # the query's own temporary directory is gone


def test_the_explained_statement_is_found_after_every_form_of_explain() -> None:
    from evalwh.queries import explained

    assert explained("EXPLAIN SELECT 1") == "SELECT 1"
    assert explained("explain analyze  COPY x TO 'y'") == "COPY x TO 'y'"
    assert explained("/* c */ EXPLAIN (ANALYZE, FORMAT json) -- why\n DELETE FROM t") == "DELETE FROM t"
    assert explained("EXPLAIN") == ""
