"""The CLI through CliRunner: stdout, stderr and exit code checked separately."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from evalwh import __version__
from evalwh.app import app
from evalwh.warehouse import code_schema_version

EVIDENCE = """\
t1_c1: SUPPORTED
t1_c2: NUMBER_MISMATCH
t1_c3: SUPPORTED
t1_c4: UNCITED
t1_c5: UNSUPPORTED
t1_c6: DANGLING
t1_c7: SUPPORTED
t1_c8: SUPPORTED
t1_supported_share: 0.500
t1_pair_precision: 0.625
t2_best_scores: q1=4,q2=3,q3=3,q4=3,q5=4,q6=2,u1=1,u2=2
t2_correct: 6,7,7,4,2
t2_best_accuracy: 7
t2_wrongly_refused_t3: q6
t2_wrongly_answered_t2: u2
t3_rows: 8
t3_answer_rows: 6
t3_chunk_ids: handbook-1,handbook-3,network-1,expenses-1,expenses-2,expenses-2,none,none
"""

CASES_TSV = """\
q1\tanswer\thandbook-1
q2\tanswer\thandbook-3
q3\tanswer\tnetwork-1
q4\tanswer\texpenses-1
q5\tanswer\texpenses-2
q6\tanswer\texpenses-2
u1\trefuse\tnone
u2\trefuse\tnone
"""


def test_seed_then_evidence_prints_the_chapter_answers(cli) -> None:
    seeded = cli("seed", "chapter3")
    assert seeded.exit_code == 0
    assert seeded.stdout == ""
    assert "loaded run 'chapter3': 9 chunks, 8 claims, 8 citations, 8 questions" in seeded.stderr
    result = cli("evidence")
    assert result.exit_code == 0
    assert result.stdout == EVIDENCE
    assert result.stderr == ""


def test_cases_to_stdout_and_to_a_file(cli, tmp_path: Path) -> None:
    cli("seed")
    result = cli("cases")
    assert (result.exit_code, result.stdout, result.stderr) == (0, CASES_TSV, "")
    out = tmp_path / "out" / "cases.tsv"
    result = cli("cases", "-o", str(out))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8") == CASES_TSV


def test_metrics_json_and_csv(cli) -> None:
    cli("seed")
    rows = json.loads(cli("metrics", "--format", "json").stdout)
    values = {r["metric"]: r["value"] for r in rows}
    assert {r["run_id"] for r in rows} == {"chapter3"}
    assert values["supported_share"] == 0.5
    assert values["pair_precision"] == 0.625
    assert (values["claims"], values["pairs"], values["sound_pairs"]) == (8, 8, 5)
    assert values["recall_at_k"] is None  # no gold chunks in the chapter's data
    table = list(csv.DictReader(io.StringIO(cli("sweep", "--format", "csv").stdout)))
    assert [r["correct"] for r in table] == ["6", "7", "7", "4", "2"]
    assert json.loads(table[0]["wrongly_answered"]) == ["u1", "u2"]


def test_status_table_lists_every_claim(cli) -> None:
    cli("seed")
    result = cli("status")
    assert result.exit_code == 0
    for claim, status in [("c4", "UNCITED"), ("c6", "DANGLING"), ("c7", "SUPPORTED")]:
        assert any(claim in line and status in line for line in result.stdout.splitlines())
    # each claim with its text and quote, as the seed's claims.csv has them
    from tests.conftest import CHAPTER3

    with (CHAPTER3 / "claims.csv").open(encoding="utf-8", newline="") as f:
        seeded = {r["claim_id"]: (r["text"], r["quote"]) for r in csv.DictReader(f)}
    rows = json.loads(cli("status", "-f", "json").stdout)
    assert {r["claim_id"]: (r["text"], r["quote"]) for r in rows} == seeded


def test_run_selection(cli, tmp_path: Path) -> None:
    assert cli("seed").exit_code == 0
    assert cli("seed", "--run", "second", "--label", "again").exit_code == 0
    runs = json.loads(cli("runs", "-f", "json").stdout)
    assert [r["run_id"] for r in runs] == ["chapter3", "second"]
    assert runs[1]["label"] == "again"
    assert json.loads(cli("metrics", "-f", "json").stdout)[0]["run_id"] == "second"
    assert json.loads(cli("metrics", "-r", "chapter3", "-f", "json").stdout)[0]["run_id"] == "chapter3"
    missing = cli("metrics", "--run", "nope")
    assert missing.exit_code == 2
    assert missing.stdout == ""
    assert missing.stderr == "evalwh: error: no run named 'nope' (runs: chapter3, second)\n"


def test_replace_swaps_the_run_and_makes_it_latest(cli) -> None:
    cli("seed")
    cli("seed", "--run", "second")
    result = cli("seed", "--replace")
    assert result.exit_code == 0
    assert "replaced run 'chapter3'" in result.stderr
    runs = json.loads(cli("runs", "-f", "json").stdout)
    assert [r["run_id"] for r in runs] == ["second", "chapter3"]
    assert json.loads(cli("metrics", "-f", "json").stdout)[0] == {"run_id": "chapter3", "metric": "claims", "value": 8}


def test_sql_runs_a_query_and_rejects_writes(cli) -> None:
    cli("seed")
    result = cli("sql", "SELECT status, count(*) AS n FROM claim_status GROUP BY status ORDER BY status", "-f", "csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "status,n", "DANGLING,1", "NUMBER_MISMATCH,1", "SUPPORTED,4", "UNCITED,1", "UNSUPPORTED,1",
    ]
    write = cli("sql", "DELETE FROM runs")
    assert write.exit_code == 2
    assert write.stderr.startswith("evalwh: error: ")
    assert json.loads(cli("runs", "-f", "json").stdout)[0]["run_id"] == "chapter3"


def test_no_warehouse_and_no_runs(cli, db: Path) -> None:
    result = cli("status")
    assert result.exit_code == 3
    assert result.stderr.startswith(f"evalwh: error: {db}: no warehouse here")
    assert not db.exists()
    assert cli("init").exit_code == 0
    empty = cli("evidence")
    assert empty.exit_code == 2
    assert "the warehouse has no runs yet" in empty.stderr


@pytest.mark.parametrize("name", ["results.csv", "results.parquet", "notes.txt", "empty.duckdb"])
def test_a_file_that_is_no_duckdb_database_is_refused_and_left_alone(runner, tmp_path: Path, name: str) -> None:
    """DuckDB attaches an existing .csv or .parquet file as an empty in-memory database: a load into it
    would report success and keep nothing. Every command refuses such a --db instead."""
    path = tmp_path / name
    if name.endswith(".parquet"):
        duckdb.execute(f"COPY (SELECT 1 AS a) TO '{path}' (FORMAT parquet)")
    else:
        path.write_text("" if name == "empty.duckdb" else "a,b\n1,2\n", encoding="utf-8")
    before = path.read_bytes()
    for args in (["seed"], ["runs"], ["init"]):
        result = runner.invoke(app, ["--db", str(path), *args])
        assert (result.exit_code, result.stdout) == (3, ""), result.stderr
        assert result.stderr == f"evalwh: error: {path}: not a DuckDB database file, so not a warehouse " \
                                "(--db names the warehouse)\n"
    assert path.read_bytes() == before


def test_newer_schema_is_refused_with_exit_3(cli, db: Path) -> None:
    cli("seed")
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO schema_version VALUES (?, now(), 'future')", [code_schema_version() + 1])
    con.close()
    for args in (["status"], ["seed", "--replace"], ["init"]):
        result = cli(*args)
        assert result.exit_code == 3, args
        assert "is newer than this evalwh supports" in result.stderr


@contextmanager
def lock_held(db: Path, seconds: float) -> Iterator[None]:
    """Another process holds the warehouse open for writing for ``seconds``, then lets go."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
         "time.sleep(float(sys.argv[2])); c.close()", str(db), str(seconds)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield
    finally:
        holder.kill()
        holder.wait()


def test_locked_warehouse_is_exit_3(cli, db: Path) -> None:
    cli("init")
    with lock_held(db, 60):
        result = cli("--wait", "0", "seed")
        assert result.exit_code == 3
        assert result.stdout == ""
        assert result.stderr == f"evalwh: error: {db}: the warehouse is locked by another process\n"
        waited = cli("--wait", "0.5", "seed")
        assert waited.exit_code == 3
        assert waited.stderr.splitlines() == [
            f"evalwh: {db} is locked by another process; waiting up to 0.5 s",
            f"evalwh: error: {db}: the warehouse is locked by another process (waited 0.5 s; --wait sets how long)",
        ]


def test_a_writer_waits_for_the_lock_to_be_released(cli, db: Path) -> None:
    cli("init")
    with lock_held(db, 2):
        result = cli("--wait", "60", "seed")
        assert result.exit_code == 0, result.stderr
        assert result.stderr.startswith(f"evalwh: {db} is locked by another process; waiting up to 60 s\n")
        assert "loaded run 'chapter3'" in result.stderr


def test_thresholds_option(cli, tmp_path: Path) -> None:
    from tests.conftest import CHAPTER3

    assert cli("load", str(CHAPTER3), "--run", "t", "--thresholds", "2,3").exit_code == 0
    rows = json.loads(cli("sweep", "-f", "json").stdout)
    assert [(r["threshold"], r["correct"]) for r in rows] == [(2, 7), (3, 7)]
    bad = cli("load", str(CHAPTER3), "--run", "u", "--thresholds", "two")
    assert bad.exit_code == 2
    assert bad.stderr == "evalwh: error: --thresholds takes whole numbers separated by commas, not 'two'\n"


def test_reserved_run_name(cli) -> None:
    result = cli("seed", "--run", "latest")
    assert result.exit_code == 2
    assert "reserved" in result.stderr


def test_version_and_help(cli) -> None:
    assert cli("--version").stdout.startswith(f"evalwh {__version__}")
    help_text = cli("--help").stdout
    for command in ("init", "load", "seed", "runs", "status", "metrics", "sweep", "cases", "evidence", "sql"):
        assert command in help_text


def test_parquet_inputs_give_the_same_evidence(cli, tmp_path: Path) -> None:
    from tests.conftest import CHAPTER3

    folder = tmp_path / "pq"
    folder.mkdir()
    con = duckdb.connect()
    for name in ("chunks", "claims", "citations", "questions"):
        con.execute(f"COPY (SELECT * FROM read_csv('{CHAPTER3 / (name + '.csv')}', all_varchar=true)) "
                    f"TO '{folder / (name + '.parquet')}' (FORMAT parquet)")
    con.close()
    assert cli("load", str(folder)).exit_code == 0
    assert cli("evidence").stdout == EVIDENCE


def test_sql_cannot_change_the_warehouse_or_touch_files(cli, db: Path, tmp_path: Path) -> None:
    import hashlib

    cli("seed")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    outside = tmp_path / "out.csv"
    attempts = [
        f"USE memory; DETACH warehouse; ATTACH '{db}' AS w2; DELETE FROM w2.runs",
        f"ATTACH '{db}' AS w2",
        "DETACH warehouse",
        "USE memory",
        f"COPY (SELECT 1) TO '{outside}'",
        f"SELECT * FROM read_csv('{db}')",
        "INSTALL httpfs",
        "SET lock_configuration = false",
        "DELETE FROM runs",
        "",
        ";",
    ]
    for statement in attempts:
        result = cli("sql", statement)
        assert result.exit_code == 2, statement
        assert result.stdout == ""
        assert result.stderr.startswith("evalwh: error: ") and len(result.stderr.splitlines()) == 1, statement
    assert not outside.exists()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert cli("sql", "DESCRIBE runs").exit_code == 0
    assert cli("sql", "SUMMARIZE claims").exit_code == 0


def test_table_output_shows_markup_as_text(cli, tmp_path: Path) -> None:
    # ids and labels are data: Rich markup in them is printed, not interpreted (and cannot crash the table)
    from tests.conftest import CHAPTER3

    assert cli("load", str(CHAPTER3), "--run", "[/]", "--label", "[bold red]RED[/]").exit_code == 0
    result = cli("runs")
    assert result.exit_code == 0
    assert "[/]" in result.stdout and "[bold red]RED[/]" in result.stdout


def test_stopwords_file_with_a_byte_order_mark(cli, tmp_path: Path) -> None:
    import shutil

    from tests.conftest import CHAPTER3

    folder = tmp_path / "bom"
    shutil.copytree(CHAPTER3, folder)
    (folder / "stopwords.txt").write_bytes("\ufeffloan\nlaptop\n".encode("utf-8"))
    assert cli("load", str(folder)).exit_code == 0
    params = json.loads(cli("sql", "SELECT params FROM runs", "-f", "json").stdout)[0]["params"]
    assert params["stopwords"] == ["laptop", "loan"]  # a JSON column is written as JSON, not as a string


def test_two_loads_started_together_both_succeed_with_wait(db: Path) -> None:
    from tests.conftest import CHAPTER3

    loads = [
        subprocess.Popen([sys.executable, "-m", "evalwh", "--db", str(db), "--wait", "60", "load", str(CHAPTER3),
                          "--run", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in ("first", "second")
    ]
    outcomes = [load.communicate(timeout=120) for load in loads]
    assert [load.returncode for load in loads] == [0, 0], outcomes
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert sorted(r[0] for r in con.execute("SELECT run_id FROM runs").fetchall()) == ["first", "second"]
    finally:
        con.close()


def test_json_output_writes_null_for_nan_and_infinity(cli) -> None:
    cli("seed")
    result = cli("sql", "SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, ['-inf'::DOUBLE, 1.5] AS c", "-f", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [{"a": None, "b": None, "c": [None, 1.5]}]
    assert "NaN" not in result.stdout and "Infinity" not in result.stdout


def test_safe_csv_neutralises_formulas_in_text_cells_only(cli) -> None:
    assert cli("seed").exit_code == 0
    query = "SELECT '=1+1' AS a, '+x' AS b, '-y' AS c, '@z' AS d, 'plain' AS e, -1.5 AS n"
    raw = cli("sql", "-f", "csv", query)
    assert raw.stdout.splitlines()[1] == "=1+1,+x,-y,@z,plain,-1.5"
    safe = cli("--safe-csv", "sql", "-f", "csv", query)
    assert safe.exit_code == 0
    assert safe.stdout.splitlines()[1] == "'=1+1,'+x,'-y,'@z,plain,-1.5"


def test_tsv_fields_never_break_a_line(cli) -> None:
    assert cli("seed").exit_code == 0
    result = cli("sql", "-f", "tsv", "SELECT 'a' || chr(10) || 'b' AS x, 'tab' || chr(9) || 'c\\d' AS y")
    assert result.exit_code == 0
    assert result.stdout == "a\\nb\ttab\\tc\\\\d\n"


def test_a_log_metric_without_logs_is_no_data_not_unknown(cli) -> None:
    assert cli("seed").exit_code == 0
    no_data = cli("check", "--max", "log_dangling_rate=0")
    assert no_data.exit_code == 1
    assert "log_dangling_rate <= 0: no data: no production log has been imported" in no_data.stdout
    typo = cli("check", "--max", "log_danglng_rate=0")
    assert typo.exit_code == 2
    assert "unknown metric 'log_danglng_rate' (did you mean 'log_dangling_rate'?)" in typo.stderr


def test_json_and_csv_write_every_duckdb_type(cli) -> None:
    # DuckDB writes them: each value as DuckDB prints it (an INTERVAL as '1 day 01:30:00'), a JSON value as JSON
    assert cli("seed").exit_code == 0
    query = ("SELECT 'a'::BLOB || '\\x00'::BLOB AS b, uuid '00000000-0000-0000-0000-00000000002a' AS id, "
             "INTERVAL 1 DAY + INTERVAL 90 MINUTE AS i, TIME '12:34:56' AS t, DATE '2026-12-02' AS d, "
             "170141183460469231731687303715884105727::HUGEINT AS h, '{\"k\": [1]}'::JSON AS j, "
             "true AS ok")
    result = cli("sql", "-f", "json", query)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [{"b": "a\\x00", "id": "00000000-0000-0000-0000-00000000002a",
                                          "i": "1 day 01:30:00", "t": "12:34:56", "d": "2026-12-02",
                                          "h": 170141183460469231731687303715884105727, "j": {"k": [1]}, "ok": True}]
    csv_out = cli("sql", "-f", "csv", query)
    assert csv_out.stdout.splitlines()[1] == (
        'a\\x00,00000000-0000-0000-0000-00000000002a,1 day 01:30:00,12:34:56,2026-12-02,'
        '170141183460469231731687303715884105727,"{""k"": [1]}",true')


def test_parquet_keeps_every_type_and_needs_a_file_or_a_pipe(cli, tmp_path: Path) -> None:
    import duckdb

    assert cli("seed").exit_code == 0
    query = ("SELECT 'a'::BLOB AS b, uuid '00000000-0000-0000-0000-00000000002a' AS id, INTERVAL 90 MINUTE AS i, "
             "TIME '12:34:56' AS t, ['x', NULL] AS l, {'k': 2.5} AS s, 'nan'::DOUBLE AS n, NULL::VARCHAR AS z")
    out = tmp_path / "rows.parquet"
    assert cli("cases", "-f", "parquet", "-o", str(out)).exit_code == 0
    cases = duckdb.sql(f"SELECT count(*) FROM '{out}'").fetchall()[0]
    assert cases == (8,)
    piped = cli("sql", "-f", "parquet", query)
    assert piped.exit_code == 0, piped.stderr
    out.write_bytes(piped.stdout_bytes)
    con = duckdb.connect()
    assert [str(t) for t in con.sql(f"SELECT * FROM '{out}'").types] == [
        "BLOB", "UUID", "INTERVAL", "TIME", "VARCHAR[]", "STRUCT(k DECIMAL(2,1))", "DOUBLE", "VARCHAR"]
    assert con.sql(f"SELECT count(*) FROM '{out}' WHERE b = 'a'::BLOB AND i = INTERVAL 90 MINUTE "
                   "AND l = ['x', NULL] AND s.k = 2.5 AND isnan(n) AND z IS NULL").fetchall() == [(1,)]


def test_json_has_no_nan_and_tsv_escapes_what_would_break_a_line(cli) -> None:
    assert cli("seed").exit_code == 0
    result = cli("sql", "-f", "json", "SELECT 'nan'::DOUBLE AS n, 'inf'::DOUBLE AS i, [1.5, 'nan'::DOUBLE] AS l")
    assert json.loads(result.stdout) == [{"n": None, "i": None, "l": [1.5, None]}]
    tsv = cli("sql", "-f", "tsv", "SELECT 'a\tb\nc\\d\re \"q\"' AS s, ['x'] AS l, NULL AS z, 2 AS n")
    assert tsv.stdout == 'a\\tb\\nc\\\\d\\re "q"\t["x"]\t\t2\n'


def test_a_long_table_is_capped_with_a_note(cli) -> None:
    assert cli("seed").exit_code == 0
    table = cli("sql", "SELECT range AS n FROM range(1500)")
    assert table.exit_code == 0
    assert "│ 999 │" in table.stdout and "│ 1000 │" not in table.stdout
    assert table.stderr == "evalwh: the table shows 1,000 of 1,500 rows; -f csv, tsv, json or parquet prints them all\n"
    assert len(cli("sql", "-f", "csv", "SELECT range AS n FROM range(1500)").stdout.splitlines()) == 1501


def test_written_files_follow_the_umask_and_dash_is_stdout(cli, tmp_path: Path) -> None:
    import os
    import stat

    assert cli("seed").exit_code == 0
    previous = os.umask(0o022)
    try:
        assert cli("cases", "-o", str(tmp_path / "cases.tsv")).exit_code == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "cases.tsv").stat().st_mode) == 0o644
    dash = cli("cases", "-o", "-")
    assert dash.stdout == (tmp_path / "cases.tsv").read_text(encoding="utf-8")
    assert not Path("-").exists()


def test_report_format_follows_the_extension(cli, tmp_path: Path) -> None:
    assert cli("seed").exit_code == 0
    assert cli("report", "-o", str(tmp_path / "r.md")).exit_code == 0
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("## evalwh report: run chapter3")
    assert cli("report", "-o", str(tmp_path / "r.html")).exit_code == 0
    assert (tmp_path / "r.html").read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html>")
    assert cli("report", "-f", "html", "-o", str(tmp_path / "x.md")).exit_code == 0
    assert "<html" in (tmp_path / "x.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "message"), [
    (["metrics", "--bogus"], "No such option: --bogus (see 'evalwh metrics --help')"),
    (["metrics", "-f", "xml"], "Invalid value for '--format' / '-f': 'xml' is not one of 'table', "
                               "'csv', 'json', 'tsv', 'parquet'. (see 'evalwh metrics --help')"),
    (["statuss"], "No such command 'statuss'. Did you mean 'status'? (see 'evalwh --help')"),
    (["load"], "Missing argument 'DIR|FILE'. (see 'evalwh load --help')"),
    (["logs", "show"], "Missing argument 'view'. Choose from: health, replay, coverage, daily "
                       "(see 'evalwh logs show --help')"),
])
def test_a_command_line_error_is_one_line_with_exit_2(runner, tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["--db", str(tmp_path / "wh.duckdb"), *args], prog_name="evalwh")
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"evalwh: error: {message}\n")
    assert not (tmp_path / "wh.duckdb").exists()


def test_global_options_may_follow_the_command(runner, tmp_path: Path) -> None:
    db = tmp_path / "after.duckdb"
    assert runner.invoke(app, ["seed", "--db", str(db)]).exit_code == 0
    after = runner.invoke(app, ["runs", "-f", "csv", "--db", str(db)])
    before = runner.invoke(app, ["--db", str(db), "runs", "-f", "csv"])
    assert after.exit_code == 0 and after.stdout == before.stdout
    assert "chapter3" in after.stdout
    quiet = runner.invoke(app, ["seed", "three-axis", f"--db={db}", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_help_lists_flags_without_a_value_type(cli) -> None:
    result = cli("load", "--help")
    assert "--allow-extra" in result.stdout and "<bool>" not in result.stdout


def test_evalwh_connections_never_draw_duckdbs_progress_bar_on_stdout() -> None:
    # DuckDB draws its bar on stdout for a query slower than its wait time: every connection evalwh opens
    # comes from new_connection, which turns it off
    from evalwh.warehouse import new_connection

    con = new_connection()
    assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone() == (False,)
    package = Path(__file__).resolve().parent.parent / "cli" / "evalwh"
    opened = [p.relative_to(package).as_posix() for p in sorted(package.rglob("*.py"))
              if "duckdb.connect(" in p.read_text(encoding="utf-8")]
    assert opened == [new_connection.__module__.removeprefix("evalwh.").replace(".", "/") + ".py"]
