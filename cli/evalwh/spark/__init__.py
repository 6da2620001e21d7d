"""Everything the ``spark`` extra needs: evalwh's views on Spark, over a folder ``evalwh export`` wrote.

Lives here: ``session`` (base tables and views into a SparkSession), ``dialect`` (sqlglot's Spark
dialect with evalwh's changes), ``portable`` (the portability lint), ``ddl`` (Spark's DDL), ``logs``
(production logs imported on Spark). Importing this package needs neither sqlglot nor PySpark; its
modules do.
May import: anything below ``evalwh.app``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when first asked for: sqlglot and PySpark load only then
    from evalwh.spark.session import portable_views as portable_views
    from evalwh.spark.session import register as register

__all__ = ["portable_views", "register"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from evalwh.spark import session as module

        return getattr(module, name)
    raise AttributeError(f"module 'evalwh.spark' has no attribute {name!r}")
