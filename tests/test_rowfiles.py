"""Rows built or fetched in Python are written as DuckDB writes the same values from a query of its own."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalwh.output import rowfiles
from evalwh.output.rows import Format, Rows
from evalwh.queries import query
from tests.conftest import DUCKDB_1

# every type a view or `evalwh sql` may hand over, NULLs, NaN and infinities, text in any script
TYPE_ZOO = """
SELECT * FROM (VALUES
  ('a'::BLOB || '\\x00'::BLOB, uuid '00000000-0000-0000-0000-00000000002a', INTERVAL 1 DAY + INTERVAL 90 MINUTE,
   TIME '12:34:56', DATE '2026-12-02', TIMESTAMP '2026-12-02 03:04:05.123456', TIMESTAMPTZ '2026-12-02 03:04:05+00',
   170141183460469231731687303715884105727::HUGEINT, 1.25::DECIMAL(6, 2), '{"k": [1]}'::JSON, ['x', NULL, 'ü']::VARCHAR[],
   {'k': 1.5, 'l': [1, 2]}, MAP {'a': 1}, 'nan'::DOUBLE, [1.5, 'inf'::DOUBLE], TRUE, 'naïve, "quoted"\n=1', 7::TINYINT,
   NULL::INTEGER),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1, NULL, NULL, [], NULL, NULL, '-inf'::DOUBLE, NULL, NULL, '', NULL, NULL)
) AS t(b, id, i, t, d, ts, tz, h, dec, j, l, s, m, f, fl, flag, txt, small, nothing)
"""


def written(tmp_path: Path, rows: Rows, fmt: Format) -> bytes | list[str]:
    """What ``fmt`` holds after ``write_file`` writes ``rows``: the bytes, or a Parquet file's rows and types."""
    target = tmp_path / f"rows.{fmt.value}"
    target.unlink(missing_ok=True)
    rowfiles.write_file(rows, fmt, target)
    return contents(target, fmt)


def contents(target: Path, fmt: Format) -> bytes | list[str]:
    if fmt is not Format.parquet:
        return target.read_bytes()
    con = duckdb.connect()
    try:
        rel = con.sql(f"SELECT * FROM '{target}'")
        return [repr([str(d[1]) for d in rel.description]), *map(repr, rel.fetchall())]
    finally:
        con.close()


def copied(tmp_path: Path, con: duckdb.DuckDBPyConnection, sql: str, fmt: Format) -> bytes | list[str]:
    """The reference: DuckDB's COPY of the query itself, the values never leaving DuckDB."""
    target = tmp_path / f"copied.{fmt.value}"
    target.unlink(missing_ok=True)
    rowfiles.copy_query(con, sql, [], fmt, target)
    return contents(target, fmt)


@pytest.fixture(scope="module")
def zoo() -> Rows:
    con = duckdb.connect()
    try:
        return query(con, TYPE_ZOO)
    finally:
        con.close()


@pytest.mark.parametrize("fmt", [Format.csv, Format.json, Format.tsv, Format.parquet])
def test_every_type_is_written_as_duckdb_writes_the_query(tmp_path: Path, zoo: Rows, fmt: Format) -> None:
    # the rows went through Python and back; the reference never left DuckDB
    by_rows = written(tmp_path, zoo, fmt)
    con = duckdb.connect()
    try:
        assert by_rows == copied(tmp_path, con, TYPE_ZOO, fmt)
    finally:
        con.close()
    if fmt is Format.csv:  # and as DuckDB prints them, not as Python would
        text = by_rows.decode() if isinstance(by_rows, bytes) else ""
        assert "1 day 01:30:00" in text and "170141183460469231731687303715884105727" in text and "nan" in text


def test_python_built_columns(tmp_path: Path) -> None:
    """Rows without query types, as a diff builds them: text beside numbers, NaN, a column of NULLs."""
    rows = Rows(("metric", "before", "after", "change", "none"),
                [("supported_share", 0.5, "0.75", math.nan, None), ("claims", 8, 9, 1.0, None),
                 ("label", "a", None, -math.inf, None)])
    # mixed columns are text in csv and tsv, each value keeping its JSON type in json; NaN and -inf as DuckDB
    # prints a DOUBLE (json: null)
    assert written(tmp_path, rows, Format.csv) == (
        b"metric,before,after,change,none\n"
        b"supported_share,0.5,0.75,nan,\n"
        b"claims,8,9,1.0,\n"
        b"label,a,,-inf,\n")
    assert written(tmp_path, rows, Format.tsv) == (
        b"supported_share\t0.5\t0.75\tnan\t\n"
        b"claims\t8\t9\t1.0\t\n"
        b"label\ta\t\t-inf\t\n")
    as_json = written(tmp_path, rows, Format.json)
    assert isinstance(as_json, bytes)
    assert json.loads(as_json) == [
        {"metric": "supported_share", "before": 0.5, "after": "0.75", "change": None, "none": None},
        {"metric": "claims", "before": 8, "after": 9, "change": 1.0, "none": None},
        {"metric": "label", "before": "a", "after": None, "change": None, "none": None}]
    assert written(tmp_path, Rows(("a",), [], types=("INTEGER",)), Format.csv) == b"a\n"


@settings(max_examples=60, deadline=None)  # each example writes four files
# a NaN is written as nan whatever its sign bit (DuckDB's own writer would print a negative one as -nan)
@given(st.lists(st.tuples(st.one_of(st.none(), st.floats().map(lambda f: math.nan if math.isnan(f) else f)), st.one_of(st.none(), st.text(max_size=12)),
                          st.lists(st.one_of(st.none(), st.text(max_size=4)), max_size=3),
                          st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1))), max_size=12))
def test_any_rows_are_written_as_duckdb_writes_them_inserted_row_by_row(
    tmp_path_factory: pytest.TempPathFactory, values: list[tuple]
) -> None:
    # the reference binds each row's values as parameters of an INSERT, not a column as one list
    tmp_path = tmp_path_factory.mktemp("rows")
    rows = Rows(("f", "t", "l", "v"), values, types=("DOUBLE", "VARCHAR", "VARCHAR[]", "INTEGER"))
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE t (f DOUBLE, t VARCHAR, l VARCHAR[], v INTEGER)")
        if values:
            con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", values)
        for fmt in (Format.csv, Format.json):
            assert written(tmp_path, rows, fmt) == copied(tmp_path, con, "SELECT * FROM t ORDER BY rowid", fmt)
    finally:
        con.close()


@pytest.mark.skipif(DUCKDB_1, reason="DuckDB 1.4's Python layer imports numpy for a query with parameters")
def test_rows_travel_without_numpy(tmp_path: Path) -> None:
    """Writing rows needs no numpy (whose import costs a small command more than its query)."""
    program = ("import sys\nfrom pathlib import Path\nfrom evalwh.output import rowfiles\n"
               "from evalwh.output.rows import Format, Rows\n"
               "rows = Rows(('n',), [(i,) for i in range(30_000)], types=('BIGINT',))\n"
               "rowfiles.write_file(rows, Format.csv, Path(sys.argv[1]))\nprint('numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", program, str(tmp_path / "out.csv")], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "False"
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines == ["n", *map(str, range(30_000))]


def test_a_read_leaves_its_connection_with_the_warehouse_released(tmp_path: Path) -> None:
    # open_warehouse(keep=...): the connection a read leaves behind has detached the file, which another
    # process may then write without waiting, and it writes the same bytes as a connection of its own
    from evalwh.loader import load_run
    from evalwh.warehouse.connection import open_warehouse
    from tests.conftest import CHAPTER3

    db = tmp_path / "wh.duckdb"
    load_run(db, CHAPTER3, run="base")
    kept: list[duckdb.DuckDBPyConnection] = []
    with open_warehouse(db, udfs=False, keep=kept) as con:
        rows = query(con, "SELECT claim_id, status, cited_ids FROM claim_status ORDER BY claim_id")
        con.execute("CREATE TEMP TABLE rows_out AS SELECT 1 AS x")  # the writer's cursor has its own
    assert kept == [con] and len(rows.rows) == 8
    try:
        assert con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name = 'warehouse'").fetchall() \
            == [(0,)]
        other = subprocess.run([sys.executable, "-m", "evalwh", "--db", str(db), "--wait", "0", "-q", "seed"],
                               capture_output=True, text=True, timeout=120)
        assert other.returncode == 0, other.stderr
        for fmt in (Format.csv, Format.json, Format.parquet):
            mine, own = tmp_path / f"kept.{fmt.value}", tmp_path / f"own.{fmt.value}"
            rowfiles.write_file(rows, fmt, mine, con=con)
            rowfiles.write_file(rows, fmt, own)
            assert mine.read_bytes() == own.read_bytes(), fmt
    finally:
        con.close()


def test_a_locked_down_connection_is_not_kept(tmp_path: Path) -> None:
    # `evalwh sql` turns file access off: such a connection could not write the rows, so it is closed
    from evalwh.loader import load_run
    from evalwh.warehouse.connection import open_warehouse
    from tests.conftest import CHAPTER3

    db = tmp_path / "wh.duckdb"
    load_run(db, CHAPTER3, run="base")
    kept: list[duckdb.DuckDBPyConnection] = []
    with open_warehouse(db, udfs=False, keep=kept) as con:
        con.execute("SET enable_external_access = false")
    assert kept == []
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")
    with pytest.raises(ValueError), open_warehouse(db, udfs=False, keep=kept) as con:
        raise ValueError("a block that fails closes its connection")
    assert kept == []
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")


def test_a_command_writes_its_rows_on_the_connection_its_read_left(tmp_path: Path, monkeypatch) -> None:
    # no second DuckDB for `runs -f csv`; `sql`, whose connection has no file access, starts one
    from typer.testing import CliRunner

    from evalwh.app import app
    from evalwh.loader import load_run
    from tests.conftest import CHAPTER3

    db = tmp_path / "wh.duckdb"
    load_run(db, CHAPTER3, run="base")
    runner = CliRunner()
    started: list[int] = []
    new_connection = rowfiles.new_connection
    monkeypatch.setattr(rowfiles, "new_connection", lambda: started.append(1) or new_connection())
    listed = runner.invoke(app, ["--db", str(db), "runs", "-f", "csv"])
    assert (listed.exit_code, listed.stderr, started) == (0, "", [])
    assert listed.stdout.splitlines()[1].startswith("base,chapter3,")
    queried = runner.invoke(app, ["--db", str(db), "sql", "SELECT 42 AS x", "-f", "csv"])
    assert (queried.exit_code, queried.stdout, started) == (0, "x\n42\n", [1])


@pytest.mark.parametrize("fmt", [Format.csv, Format.json, Format.tsv])
def test_rows_past_one_row_group_keep_their_order(tmp_path: Path, fmt: Format) -> None:
    """150,000 rows (more than a DuckDB row group of 122,880) with text that every format's cells
    rewrite go to the file in the order given, as `evalwh cases -o cases.tsv` writes them."""
    count = 150_000
    rows = Rows(("n", "text"), [(n, f"=claim {n} naïve\tcafé") for n in range(count)], types=("BIGINT", "VARCHAR"))
    target = tmp_path / f"rows.{fmt.value}"
    rowfiles.write_file(rows, fmt, target, safe_csv=True)
    with target.open(encoding="utf-8", newline="") as f:
        if fmt is Format.json:
            numbers = [row["n"] for row in json.load(f)]
        elif fmt is Format.csv:
            numbers = [int(row["n"]) for row in csv.DictReader(f)]
        else:
            numbers = [int(line.split("\t", 1)[0]) for line in f.read().splitlines()]
    assert numbers == list(range(count))
