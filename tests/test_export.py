"""evalwh export: every table and view, read back by plain DuckDB, holds exactly the warehouse's rows."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from evalwh.app import app
from tests.conftest import rows


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])


def read_back(con: duckdb.DuckDBPyConnection, folder: Path, path: str, fmt: str) -> str:
    if path.endswith("/"):
        glob = str(folder / path / f"**/*.{fmt}")
        reader = "read_parquet" if fmt == "parquet" else "read_csv"
        extra = ", hive_partitioning = true" + (", union_by_name = true" if fmt == "parquet" else "")
        return f"{reader}('{glob}'{extra})"
    return f"read_parquet('{folder / path}')" if fmt == "parquet" else f"read_csv('{folder / path}')"


def same_rows(db: Path, name: str, exported: str, columns: list[str], where: str = "") -> None:
    cols = ", ".join(f'"{c}"' for c in columns)
    con = duckdb.connect()
    con.execute(f"ATTACH '{db}' AS w (READ_ONLY)")
    try:
        missing = con.execute(f'SELECT count(*) FROM (SELECT {cols} FROM w."{name}"{where} EXCEPT ALL '
                              f"SELECT {cols} FROM {exported})").fetchone()[0]
        extra = con.execute(f"SELECT count(*) FROM (SELECT {cols} FROM {exported} EXCEPT ALL "
                            f'SELECT {cols} FROM w."{name}"{where})').fetchone()[0]
    finally:
        con.close()
    assert (missing, extra) == (0, 0), name


def test_every_table_and_view_is_exported_whole(db: Path, tmp_path: Path) -> None:
    for seed in ("chapter3", "handbook", "three-axis"):
        assert run(db, "seed", seed).exit_code == 0
    assert run(db, "materialize").exit_code == 0
    out = tmp_path / "export"
    result = run(db, "export", str(out))
    assert result.exit_code == 0, result.stderr
    tables = {r[0] for r in rows(db, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'")}
    views = {r[0] for r in rows(db, "SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' AND NOT internal")}
    # stdout is no terminal here: the list is data (CSV), one row per table and view
    import csv
    import io

    listed = list(csv.DictReader(io.StringIO(result.stdout)))
    # the question x chunk score views only when asked for
    matrices = {"question_chunk_scores", "retriever_scores", "tfidf_scores", "tfidf_units"}
    assert {r["name"] for r in listed} == tables | views - matrices
    assert "left out the question x chunk score views" in result.stderr
    every = run(db, "export", str(tmp_path / "every"), "--all")
    assert {r["name"] for r in csv.DictReader(io.StringIO(every.stdout))} == tables | views
    one = run(db, "export", str(tmp_path / "one"), "--include", "question_chunk_scores")
    assert {r["name"] for r in csv.DictReader(io.StringIO(one.stdout))} == tables | views - matrices | \
        {"question_chunk_scores"}
    bad = run(db, "export", str(tmp_path / "bad"), "--include", "claim_status")
    assert (bad.exit_code, bad.stdout) == (2, "") and "not a view left out by default" in bad.stderr
    assert not (tmp_path / "bad").exists()
    out = tmp_path / "every"
    assert {r["kind"] for r in listed if r["name"] in views} == {"view"}
    con = duckdb.connect()
    for name in sorted(tables | views):
        path = f"{name}/" if name in tables else f"views/{name}.parquet"
        columns = [r[0] for r in rows(db, f"SELECT column_name FROM duckdb_columns() WHERE table_name = '{name}' "
                                          "AND schema_name = 'main' ORDER BY column_index")] if name in tables else \
            [d[0] for d in duckdb.connect(str(db), read_only=True).execute(f'SELECT * FROM "{name}" LIMIT 0').description]
        same_rows(db, name, read_back(con, out, path, "parquet"), columns)
    # the large tables are partitioned by run, as Spark and Polars expect
    assert sorted(p.name for p in (out / "questions").iterdir()) == [
        "run=chapter3", "run=handbook", "run=three-axis"]


def test_one_run_as_csv(db: Path, tmp_path: Path) -> None:
    for seed in ("chapter3", "handbook"):
        assert run(db, "seed", seed).exit_code == 0
    out = tmp_path / "one"
    assert run(db, "export", str(out), "--run", "handbook", "--file-format", "csv").exit_code == 0
    assert [p.name for p in (out / "questions").iterdir()] == ["run=handbook"]
    con = duckdb.connect()
    exported = read_back(con, out, "questions/", "csv")
    assert con.execute(f"SELECT count(*) FROM {exported}").fetchone()[0] == \
        rows(db, "SELECT count(*) FROM questions WHERE run_id = 'handbook'")[0][0]
    metrics = con.execute(f"SELECT DISTINCT run_id FROM {read_back(con, out, 'views/run_metrics_long.csv', 'csv')}"
                          ).fetchall()
    assert metrics == [("handbook",)]


def test_export_never_writes_into_a_folder_that_holds_files(db: Path, tmp_path: Path) -> None:
    assert run(db, "seed").exit_code == 0
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    result = run(db, "export", str(out))
    assert result.exit_code == 2
    assert "exists and is not an empty folder" in result.stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".taken.")]
    missing = run(db, "export", str(tmp_path / "x"), "--run", "nope")
    assert missing.exit_code == 2 and not (tmp_path / "x").exists()
    assert json.loads(run(db, "runs", "-f", "json").stdout)[0]["run_id"] == "chapter3"


def test_a_numeric_looking_run_id_stays_text_in_every_reader(db: Path, tmp_path: Path) -> None:
    """The run id is inside every partitioned file as run_id, its folder named run=<id>, so pandas and Polars
    read a table folder as it is, run 007 as the text '007', and join it with the view files."""
    import pandas as pd
    import polars as pl

    from evalwh.loader import load_run
    from tests.conftest import CHAPTER3

    load_run(db, CHAPTER3, run="007")
    out = tmp_path / "export"
    assert run(db, "export", str(out)).exit_code == 0
    frame = pd.read_parquet(out / "questions", partitioning=None)
    assert set(frame["run_id"]) == {"007"}
    metrics = pd.read_parquet(out / "views" / "run_metrics.parquet")
    assert len(frame.merge(metrics, on="run_id")) == len(frame)
    assert set(pl.read_parquet(str(out / "questions" / "**" / "*.parquet"), hive_partitioning=False)["run_id"]) == {"007"}


def test_pandas_and_polars_read_a_table_folder_as_written(db: Path, tmp_path: Path) -> None:
    import pandas as pd
    import polars as pl

    from evalwh.loader import load_run
    from tests.conftest import CHAPTER3

    load_run(db, CHAPTER3, run="chapter3")
    load_run(db, CHAPTER3, run="2026", default_dataset="chapter3")
    out = tmp_path / "export"
    assert run(db, "export", str(out)).exit_code == 0
    claims = rows(db, "SELECT run_id, claim_id, text FROM claims ORDER BY ALL")
    frame = pd.read_parquet(out / "claims")  # plain: the folder names are read as a column of their own
    assert sorted(zip(frame["run_id"], frame["claim_id"], frame["text"], strict=True)) == claims
    polars = pl.read_parquet(out / "claims")
    assert sorted(polars.select("run_id", "claim_id", "text").iter_rows()) == claims
    assert set(polars["run_id"]) == {"chapter3", "2026"}


def test_the_list_format_and_the_file_format(db: Path, tmp_path: Path) -> None:
    assert run(db, "seed", "chapter3").exit_code == 0
    listed = run(db, "export", str(tmp_path / "a"), "-f", "json")
    assert listed.exit_code == 0
    assert {"name", "kind", "rows", "path"} == set(json.loads(listed.stdout)[0])
    noted = run(db, "export", str(tmp_path / "b"), "--format", "csv")
    assert "the files' own format is --file-format (parquet)" in noted.stderr
    assert (tmp_path / "b" / "questions").is_dir() and list((tmp_path / "b").glob("questions/*/*.parquet"))
