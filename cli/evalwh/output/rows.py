"""Rows and the formats they are written in: what every command's result is, before it is drawn or written.

stdout is data: rows go out as ``table`` (for people, drawn by ``evalwh.output.terminal``), ``csv``,
``json``, ``tsv`` (tab-separated with no header, the shape of the chapter's cases.tsv) or ``parquet``
(written by DuckDB, ``evalwh.output.rowfiles``). This module imports neither Rich nor Typer, so the
library's read side (``evalwh.queries``, ``evalwh.report``) can return rows without them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Format(str, enum.Enum):
    """Row output formats."""

    table = "table"
    csv = "csv"
    json = "json"
    tsv = "tsv"
    parquet = "parquet"


@dataclass(frozen=True)
class Rows:
    """A result: column names and row tuples."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    types: tuple[str, ...] | None = None  # DuckDB type of each column, when the rows come from a query

    def dicts(self) -> list[dict[str, Any]]:
        """Each row as a column -> value mapping."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


# text a spreadsheet runs as a formula starts with one of these (--safe-csv prefixes it with ')
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
