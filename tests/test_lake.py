"""A warehouse in a DuckLake: every command on a lake as on a file, every view equal, a plain client reading
it, concurrent writers that all land (each run, batch and request once), the baseline rules, `copy`.

Needs DuckDB's ducklake extension: ``make test-lake`` installs the ``lake`` extra (DuckDB 1.4.4 with its
official extension binaries) and starts a throwaway Postgres server for the lakes whose catalog is in
Postgres (``EVALWH_TEST_POSTGRES``: a libpq connection string without dbname). Elsewhere these tests are
skipped, unless ``EVALWH_TEST_LAKE=required`` says they must run.

Expected values come from a warehouse file loaded with the same inputs: a lake holds what a file holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.history import materialize
from evalwh.loader import load_run
from evalwh.location import Lake
from evalwh.logs import import_logs
from evalwh.resources import model_sources
from evalwh.warehouse.baselines import set_baseline
from evalwh.warehouse.connection import attach, new_connection
from evalwh.warehouse.copying import copy_warehouse
from evalwh.warehouse.lake import bundled_extensions, load_extensions
from tests.conftest import CHAPTER3, REPO

HANDBOOK = REPO / "seeds" / "handbook"
HANDBOOK_NEXT = REPO / "seeds" / "handbook-next"
THREE_AXIS = REPO / "seeds" / "three-axis"
LOGS = REPO / "tests" / "logs"
POSTGRES = os.environ.get("EVALWH_TEST_POSTGRES")
REQUIRED = os.environ.get("EVALWH_TEST_LAKE") == "required"
EVALWH = str(Path(sys.executable).with_name("evalwh"))


def _lake_available() -> bool:
    con = duckdb.connect()
    try:
        load_extensions(con, Lake("x.ducklake"))
        return True
    except Exception:
        return False
    finally:
        con.close()


pytestmark = pytest.mark.skipif(not REQUIRED and not _lake_available(),
                                reason="DuckDB's ducklake extension is not here (make test-lake installs it)")


def _postgres_database() -> str:
    """A new, empty Postgres database on the test server; its libpq connection string."""
    assert POSTGRES, "EVALWH_TEST_POSTGRES names no Postgres server"
    name = "evalwh_" + uuid.uuid4().hex[:12]
    con = duckdb.connect()
    try:
        load_extensions(con, Lake("postgres:"))
        con.execute(f"ATTACH '{POSTGRES} dbname=postgres' AS pg (TYPE postgres)")
        con.execute(f"CALL postgres_execute('pg', 'CREATE DATABASE {name}', use_transaction := false)")
    finally:
        con.close()
    return f"{POSTGRES} dbname={name}"


CATALOGS = ["duckdb", "postgres"]


@pytest.fixture(params=CATALOGS)
def lake(request: pytest.FixtureRequest, tmp_path: Path) -> Lake:
    """A new lake (nothing created yet): its catalog in a DuckDB file, or in a new Postgres database."""
    if request.param == "postgres":
        if not POSTGRES:
            if REQUIRED:
                pytest.fail("EVALWH_TEST_POSTGRES is not set: make test-lake needs a Postgres server")
            pytest.skip("no Postgres server (EVALWH_TEST_POSTGRES)")
        return Lake("postgres:" + _postgres_database(), str(tmp_path / "lake-data"))
    return Lake(str(tmp_path / "catalog.ducklake"), str(tmp_path / "lake-data"))


@pytest.fixture(scope="module")
def file_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse file holding each seed, two log imports, its history and a blessed baseline."""
    path = tmp_path_factory.mktemp("file") / "wh.duckdb"
    load_run(path, CHAPTER3, run="chapter3")
    load_run(path, HANDBOOK, run="handbook")
    load_run(path, HANDBOOK_NEXT, run="handbook-next")
    load_run(path, THREE_AXIS, run="three-axis")
    import_logs(path, [LOGS / "evalwh.jsonl"])
    import_logs(path, [LOGS / "otlp.json"])
    set_baseline(path, "handbook", note="approved")
    materialize(path)
    return path


def cli(lake: Lake, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", f"ducklake:{lake.spec}", "--data-path", lake.data_path or "", *args])
    return result.exit_code, result.stdout, result.stderr


def both(file: Path, lake: Lake) -> Iterator[duckdb.DuckDBPyConnection]:
    con = new_connection()
    attach(con, file, read_only=True, alias="f")
    attach(con, lake, read_only=True, alias="l")
    yield con
    con.close()


def test_every_view_of_a_lake_equals_the_file_it_was_copied_from(file_warehouse: Path, lake: Lake) -> None:
    result = copy_warehouse(file_warehouse, lake)
    assert result.runs == ["chapter3", "handbook", "handbook-next", "three-axis"]
    for con in both(file_warehouse, lake):
        for view in sorted(model_sources()):
            one = con.execute(f"SELECT count(*) FROM (FROM f.{view} EXCEPT ALL FROM l.{view})").fetchall()[0][0]
            two = con.execute(f"SELECT count(*) FROM (FROM l.{view} EXCEPT ALL FROM f.{view})").fetchall()[0][0]
            assert (one, two) == (0, 0), view
        # and back: the lake copied into a new file holds every table of the first
        back = Path(str(lake.data_path)).with_name("back.duckdb")
        copy_warehouse(lake, back)
        for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'f' "
                                    "AND table_name NOT IN ('schema_version', 'write_ticket')").fetchall():
            con.execute(f"ATTACH IF NOT EXISTS '{back}' AS b (READ_ONLY)")
            diff = con.execute(f"SELECT (SELECT count(*) FROM (FROM f.{table} EXCEPT ALL FROM b.{table})) + "
                               f"(SELECT count(*) FROM (FROM b.{table} EXCEPT ALL FROM f.{table}))").fetchall()
            assert diff == [(0,)], table


def test_every_command_works_on_a_lake_as_on_a_file(file_warehouse: Path, lake: Lake, tmp_path: Path) -> None:
    for seed in ("chapter3", "handbook", "handbook-next"):
        assert cli(lake, "-q", "seed", seed)[0] == 0
    assert cli(lake, "-q", "logs", "import", str(LOGS / "evalwh.jsonl"))[0] == 0
    assert cli(lake, "-q", "logs", "import", str(LOGS / "otlp.json"))[0] == 0  # traces: reads what is pending
    assert cli(lake, "-q", "materialize")[0] == 0
    file_cli = CliRunner()
    for args in (["metrics", "-r", "chapter3", "-f", "csv"], ["status", "-r", "chapter3", "-f", "csv"],
                 ["cases", "-r", "chapter3"], ["logs", "show", "health", "-r", "chapter3", "-f", "csv"]):
        expected = file_cli.invoke(app, ["--db", str(file_warehouse), *args])
        code, out, err = cli(lake, *args)
        assert (code, out) == (expected.exit_code, expected.stdout), (args, err)
    code, out, _ = cli(lake, "runs", "-f", "csv")
    assert code == 0 and [line.split(",")[0] for line in out.splitlines()[1:]] == \
        ["chapter3", "handbook", "handbook-next"]
    # the gate names what got worse, against the previous run of the dataset
    code, out, err = cli(lake, "check", "-r", "handbook-next", "--max-regressions", "questions=0")
    assert code == 1 and out.startswith("baseline: handbook (the previous run of dataset handbook")
    assert cli(lake, "diff", "handbook", "handbook-next", "-f", "csv")[0] == 0
    code, out, _ = cli(lake, "report", "-f", "md")
    assert code == 0 and "## evalwh report: run handbook-next" in out
    assert cli(lake, "-q", "report", "-f", "html", "-o", str(tmp_path / "r.html"))[0] == 0
    assert cli(lake, "-q", "site", str(tmp_path / "site"))[0] == 0 and (tmp_path / "site" / "index.html").is_file()
    assert cli(lake, "-q", "export", str(tmp_path / "export"))[0] == 0
    assert duckdb.sql(f"SELECT count(*) FROM '{tmp_path / 'export' / 'claims'}/**/*.parquet'").fetchall() == [(8,)]
    code, out, _ = cli(lake, "sql", "SELECT count(*) AS n FROM claim_status", "-f", "csv")
    assert (code, out) == (0, "n\n8\n")
    code, out, _ = cli(lake, "views")
    assert code == 0 and "CREATE OR REPLACE VIEW" in out


def test_baselines_on_a_lake(lake: Lake) -> None:
    for seed in ("handbook", "handbook-next"):
        assert cli(lake, "-q", "seed", seed)[0] == 0
    assert cli(lake, "-q", "seed", "handbook-next", "--run", "again")[0] == 0
    # against its previous run nothing changed; against the blessed run two questions got worse
    assert cli(lake, "-q", "check", "-r", "again", "--max-regressions", "questions=0")[0] == 0
    assert cli(lake, "-q", "baseline", "set", "handbook", "--note", "approved")[0] == 0
    code, out, _ = cli(lake, "baseline", "show", "-f", "csv")
    assert code == 0 and out.splitlines()[1].startswith("handbook,handbook,") and out.splitlines()[1].endswith(
        ",approved")
    code, out, _ = cli(lake, "check", "-r", "again", "--max-regressions", "questions=0")
    assert code == 1 and out.startswith("baseline: handbook (the blessed baseline of dataset handbook)")
    assert cli(lake, "-q", "baseline", "clear", "handbook")[0] == 0
    assert cli(lake, "-q", "check", "-r", "again", "--max-regressions", "questions=0")[0] == 0


def test_a_plain_duckdb_client_reads_every_view_of_a_lake(file_warehouse: Path, lake: Lake) -> None:
    copy_warehouse(file_warehouse, lake)
    extensions = bundled_extensions()
    script = textwrap.dedent(f"""
        import sys
        import duckdb
        con = duckdb.connect()
        {"con.execute(" + repr(f"SET extension_directory = '{extensions}'") + ")" if extensions else ""}
        con.execute("LOAD ducklake")
        con.execute({f"ATTACH 'ducklake:{lake.spec}' AS lake (READ_ONLY)"!r})
        views = [v for (v,) in con.execute("SELECT view_name FROM duckdb_views() WHERE database_name = 'lake' "
                                           "AND NOT internal ORDER BY 1").fetchall()]
        for view in views:
            con.execute(f"SELECT count(*) FROM lake.{{view}}").fetchall()
        assert "evalwh" not in sys.modules
        print(len(views), con.execute("SELECT count(*) FROM lake.claim_status").fetchall()[0][0])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    claims = duckdb.connect(str(file_warehouse), read_only=True).execute("SELECT count(*) FROM claims").fetchall()
    assert done.stdout.split() == [str(len(model_sources())), str(claims[0][0])]


def _run_all(commands: list[list[str]], env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    """Start every command at once; wait for all."""
    started = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
               for c in commands]
    return [subprocess.CompletedProcess(p.args, p.wait(timeout=600), *p.communicate()) for p in started]


def test_concurrent_loads_and_imports_all_land_each_once(lake: Lake, tmp_path: Path) -> None:
    if lake.catalog != "postgres":
        pytest.skip("a lake whose catalog is a DuckDB file has one writer at a time")
    env = {**os.environ, "EVALWH_DB": f"ducklake:{lake.spec}", "EVALWH_DATA_PATH": str(lake.data_path),
           "EVALWH_WAIT": "120"}
    assert subprocess.run([EVALWH, "-q", "init"], env=env).returncode == 0
    seeds = [("handbook", f"h{i}") for i in range(4)] + [("chapter3", f"c{i}") for i in range(4)]
    loads = [[EVALWH, "-q", "seed", seed, "--run", run] for seed, run in seeds]
    # the same run id from two jobs with other input: one lands, the other is refused
    loads += [[EVALWH, "-q", "seed", "handbook", "--run", "same"], [EVALWH, "-q", "seed", "chapter3", "--run", "same"]]
    # four log imports, two of them the same file: its requests are stored once
    imports = [[EVALWH, "-q", "logs", "import", str(LOGS / name)]
               for name in ("evalwh.jsonl", "evalwh.jsonl", "anthropic.jsonl", "ragas.jsonl")]
    done = _run_all(loads + imports, env)
    codes = [d.returncode for d in done]
    assert codes[:8] == [0] * 8 and codes[10:] == [0] * 4, [d.stderr for d in done]
    assert sorted(codes[8:10]) == [0, 2]
    refused = next(d for d in done[8:10] if d.returncode == 2)
    assert "run 'same' already exists with other input" in refused.stderr

    # the same inputs loaded one after another into a file: each run's views are the same
    file = tmp_path / "same.duckdb"
    for seed, run in seeds:
        load_run(file, REPO / "seeds" / seed, run=run)
    import_logs(file, [LOGS / "evalwh.jsonl"])
    import_logs(file, [LOGS / "anthropic.jsonl"])
    import_logs(file, [LOGS / "ragas.jsonl"])
    for con in both(file, lake):
        assert con.execute("SELECT count(*) FROM l.runs").fetchall() == [(9,)]
        assert con.execute("SELECT count(*) FROM l.log_batches").fetchall() == [(3,)]
        for view in ("claim_status", "run_metrics_long", "question_outcomes", "case_scores", "log_request_scores",
                     "log_citation_health"):
            for a, b in (("f", "l"), ("l", "f")):
                extra = con.execute(f"SELECT count(*) FROM (FROM {a}.{view} WHERE run_id <> 'same' "
                                    f"EXCEPT ALL FROM {b}.{view} WHERE run_id <> 'same')").fetchall()
                assert extra == [(0,)], (view, a)


def test_sql_on_a_lake_reads_the_lake_and_nothing_else(lake: Lake, tmp_path: Path) -> None:
    assert cli(lake, "-q", "seed", "chapter3")[0] == 0
    secret = tmp_path / "secret.txt"
    secret.write_text("do not print me")
    code, out, _ = cli(lake, "sql", "SELECT count(*) AS n FROM claims", "-f", "csv")
    assert (code, out) == (0, "n\n8\n")
    code, out, err = cli(lake, "sql", f"SELECT content FROM read_text('{secret}')")
    assert code != 0 and "do not print me" not in out + err


def test_lake_errors_are_one_clear_line(tmp_path: Path) -> None:
    missing = Lake(str(tmp_path / "none.ducklake"), None)
    code, out, err = cli(missing, "runs")
    assert (code, out) == (3, "")
    assert err == f"evalwh: error: ducklake:{tmp_path / 'none.ducklake'}: no warehouse here; create one with " \
                  "`evalwh init` or `evalwh load DIR`\n"
    assert not (tmp_path / "none.ducklake").exists()
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "f.duckdb"), "--data-path", "d", "runs"])
    assert result.exit_code == 2 and "--data-path is for a lake" in result.stderr
    if POSTGRES:  # a password never reaches a message
        code, out, err = cli(Lake(f"postgres:{POSTGRES} dbname=evalwh_missing password=hunter2", "d"), "runs")
        assert code == 3 and "hunter2" not in err and "password=***" in err



def test_a_notebook_warehouse_may_be_a_lake(lake: Lake) -> None:
    import evalwh

    with evalwh.Warehouse(f"ducklake:{lake.spec}", data_path=lake.data_path) as wh:
        wh.load(CHAPTER3, run="chapter3")
        assert wh.metrics("chapter3")["supported_share"] == 0.5  # 4 of the chapter's 8 claims
        assert wh.view("claim_status", "chapter3").aggregate("count(*)").fetchall() == [(8,)]
