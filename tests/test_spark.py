"""The portable views give the same rows on PySpark as on DuckDB, over an `evalwh export` of the seeds.

Needs pyspark and Java (the ``spark`` extra; .ci/run installs it). Outside CI the test is skipped
when pyspark is missing; in CI it must run.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import os
from pathlib import Path
from typing import Any

import duckdb
import pytest
from evalwh.app import app
from typer.testing import CliRunner

LOGS_DIR = Path(__file__).resolve().parent / "logs"

SEEDS = ("chapter3", "handbook", "three-axis")


def _need_spark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI must install pyspark (see .ci/run)")
        pytest.skip("needs pyspark (pip install 'evalwh[spark]')")


def normal(value: Any) -> Any:
    """One value as both engines' rows are compared: floats to 12 significant digits, structs and lists
    as tuples, times as ISO text."""
    if isinstance(value, float):
        return None if math.isnan(value) else float(f"{value:.12g}")
    if isinstance(value, decimal.Decimal):
        return float(f"{float(value):.12g}")
    if isinstance(value, (list, tuple)):
        return tuple(normal(v) for v in value)
    if isinstance(value, dict):
        return tuple(normal(v) for v in value.values())
    if hasattr(value, "asDict"):
        return tuple(normal(v) for v in value.asDict().values())
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    return value


def rows_of(records: list[Any]) -> list[str]:
    return sorted(repr(tuple(normal(v) for v in record)) for record in records)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("spark")
    db = folder / "wh.duckdb"
    runner = CliRunner()
    for seed in SEEDS:
        assert runner.invoke(app, ["--db", str(db), "seed", seed]).exit_code == 0
    assert runner.invoke(app, ["--db", str(db), "logs", "import", str(LOGS_DIR / "evalwh.jsonl")]).exit_code == 0
    assert runner.invoke(app, ["--db", str(db), "export", str(folder / "export")]).exit_code == 0
    return db, folder / "export"


def test_portable_views_are_equal_on_spark(exported: tuple[Path, Path]) -> None:
    _need_spark()
    from evalwh.spark import portable_views, register
    from pyspark.sql import SparkSession

    db, export_dir = exported
    spark = (SparkSession.builder.master("local[1]").appName("evalwh-test")
             .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    try:
        views = portable_views()
        created = register(spark, export_dir, views)
        assert set(views) <= set(created)
        con = duckdb.connect(str(db), read_only=True)
        checked = {}
        for view in views:
            rel = con.execute(f'SELECT * FROM "{view}"')
            columns = [d[0] for d in rel.description]
            expected = rows_of(rel.fetchall())
            frame = spark.table(view).select(*[f"`{c}`" for c in columns])
            actual = rows_of(frame.collect())
            assert actual == expected, view
            checked[view] = len(expected)
        con.close()
    finally:
        spark.stop()
    # the comparison is not vacuous: the seeds and the log give rows to most portable views
    assert sum(1 for n in checked.values() if n) >= len(views) - 2, checked
    assert {"chunks", "cases", "citation_pairs", "log_citation_health"} <= set(views)
