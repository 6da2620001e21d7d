"""Running evalwh's views on Spark, over a folder written by ``evalwh export``.

``register(spark, export_dir)`` reads each base table from ``export_dir/<table>/`` (Parquet,
Hive-partitioned by ``run_id`` where the table has one) as a temporary view, then creates the
evalwh views, transpiled by sqlglot (``evalwh views --dialect spark``), in dependency order.
Needs the ``spark`` extra (pyspark, sqlglot). ``portable_views()`` are the views whose SQL, and
the SQL of every view they read, passes the portability lint (``evalwh.spark.portable``): today every
view; tests/test_spark.py proves them equal to DuckDB. ``import_logs`` (``evalwh.spark.logs``)
imports production logs on Spark into the same log tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evalwh.resources import model_sources
from evalwh.spark.ddl import view_statements
from evalwh.spark.logs import import_logs
from evalwh.spark.portable import lint
from evalwh.warehouse.views import dependency_order, model_inputs, upstream

__all__ = ["import_logs", "portable_views", "register"]


def portable_views() -> list[str]:
    """The views whose SQL and whose inputs' SQL hold no construct the lint flags, in dependency order."""
    sources = model_sources()
    graph = model_inputs(sources)
    dirty = {name for name, sql in sources.items() if lint(name, sql)}
    return [name for name in dependency_order(sources) if name not in dirty and not upstream(graph, [name]) & dirty]


def register(spark: Any, export_dir: Path, views: Iterable[str] | None = None) -> list[str]:
    """Register the exported tables and create ``views`` (default: the portable ones) with the views they
    read; returns the views created, in order."""
    # a run id such as 2026 stays a string, as it is in the warehouse
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    for folder in sorted(Path(export_dir).iterdir()):
        if folder.is_dir() and folder.name != "views":
            frame = spark.read.option("basePath", str(folder)).parquet(str(folder))
            if "run" in frame.columns and "run_id" in frame.columns:  # the partition folder's name: run_id is inside
                frame = frame.drop("run")
            frame.createOrReplaceTempView(folder.name)
    wanted = set(views if views is not None else portable_views())
    needed = wanted | upstream(model_inputs(model_sources()), wanted)
    created = []
    order = dependency_order(model_sources())
    for name, statement in zip(order, view_statements(), strict=True):
        if name in needed:
            spark.sql(statement)
            created.append(name)
    return created
