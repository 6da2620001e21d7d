"""The warehouse's DDL for Spark: every view in dependency order, and Spark's base tables.

``evalwh views --dialect spark`` transpiles each model with sqlglot (the ``spark`` extra) into
``CREATE OR REPLACE TEMPORARY VIEW name AS ...`` (sqlglot's Spark dialect with the changes in
``evalwh.spark.dialect``) followed by a line holding only ``;``, so a
script can split the output on that line. ``--schema`` prints the base tables for Spark: the
same columns, no PRIMARY KEY, JSON kept as STRING. The views are transpiled as written:
``evalwh.spark.portable`` lists the constructs that do not yet mean the same on Spark.
"""

from __future__ import annotations

from types import ModuleType

from evalwh.errors import UsageError
from evalwh.resources import model_sources, schema_steps
from evalwh.text.textnorm import register_udfs
from evalwh.warehouse.connection import new_connection
from evalwh.warehouse.views import dependency_order


def _sqlglot() -> ModuleType:
    try:
        import sqlglot
    except ImportError:
        raise UsageError("the spark dialect needs sqlglot: pip install 'evalwh[spark]'") from None
    return sqlglot


def view_statements() -> list[str]:
    """One CREATE OR REPLACE TEMPORARY VIEW statement per model, each after the views it reads."""
    sources = model_sources()
    order = dependency_order(sources)
    _sqlglot()
    from evalwh.spark.dialect import to_spark

    return [f"CREATE OR REPLACE TEMPORARY VIEW {name} AS\n{to_spark(sources[name])}" for name in order]


def spark_schema() -> list[str]:
    """CREATE TABLE statements for Spark with the columns of every base table of the warehouse."""
    sqlglot = _sqlglot()
    con = new_connection()
    try:
        register_udfs(con)
        for _, _, sql in schema_steps():
            con.execute(sql)
        tables: dict[str, list[str]] = {}
        for table, column, data_type in con.execute(
            "SELECT c.table_name, c.column_name, c.data_type FROM duckdb_columns() AS c "
            "JOIN duckdb_tables() AS t ON t.database_name = c.database_name AND t.schema_name = c.schema_name "
            "AND t.table_name = c.table_name WHERE c.database_name = current_database() AND c.schema_name = 'main' "
            "ORDER BY c.table_name, c.column_index"
        ).fetchall():
            spark_type = "STRING" if data_type == "JSON" else \
                sqlglot.exp.DataType.build(data_type, dialect="duckdb").sql("spark")
            tables.setdefault(table, []).append(f"  {column} {spark_type}")
    finally:
        con.close()
    return [f"CREATE TABLE {table} (\n" + ",\n".join(columns) + "\n) USING parquet"
            for table, columns in tables.items()]
