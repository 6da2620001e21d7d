"""Rows, the formats they are written in, the terminal table and atomic files.

stdout is data: rows go out as ``table`` (for people, drawn by Rich), ``csv``,
``json``, ``tsv`` (tab-separated with no header, the shape of the chapter's
cases.tsv) or ``parquet``. Every format but ``table`` is written by DuckDB
(``evalwh.rowfiles``); this module keeps the table and the file handling they share.
"""

from __future__ import annotations

import enum
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from evalwh.errors import UsageError
from rich.console import Console
from rich.markup import escape
from rich.table import Table


# the longest table -f table draws; more rows are a job for -f csv, tsv, json or parquet
TABLE_ROWS = 1_000


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


def _table_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_table_value(v) for v in value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02X}" for b in bytes(value))
    return str(value)


def write_table(rows: Rows, stream: TextIO) -> None:
    """Draw ``rows`` as a table for a person: at most TABLE_ROWS rows, cells never cut when piped."""
    table = Table(*(escape(c) for c in rows.columns), show_edge=True, header_style="bold")
    for row in rows.rows[:TABLE_ROWS]:
        table.add_row(*(escape(_table_value(v)) for v in row))  # data, never Rich markup
    if len(rows.rows) > TABLE_ROWS:  # a table is for reading; past this, a program wants csv or json
        print(f"evalwh: the table shows {TABLE_ROWS:,} of {len(rows.rows):,} rows; -f csv, tsv, json or parquet "
              "prints them all", file=sys.stderr)
    width = None if stream.isatty() else 1000  # piped: never truncate cells
    Console(file=stream, width=width, soft_wrap=False).print(table)


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A new empty file beside ``path``, to be filled in the block; it replaces ``path`` only if the block completes."""
    for folder in (path.parent, *path.parent.parents):
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"{path}: cannot write there, {folder} is not a directory")
            break
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes the file private; a written file follows the umask
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_output(path: Path) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` only if the block completes."""
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as handle:
        yield handle


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_lines(lines: Sequence[str], stream: TextIO) -> None:
    """Write text lines, each ending in a newline."""
    for line in lines:
        stream.write(line + "\n")
