"""The one writer for rows: stdout is data, in ``table``, ``csv``, ``json`` or ``tsv``.

``table`` is for people (Rich); ``csv`` and ``json`` are for programs;
``tsv`` is tab-separated with no header, the shape of the chapter's cases.tsv,
with backslash, tab, newline and carriage return written as ``\\``, ``\t``,
``\n`` and ``\r`` so a field never breaks a line. Lists print as JSON arrays in
csv and tsv, and comma-joined in tables. ``safe_csv`` prefixes text cells a
spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``,
tab or carriage return) with ``'``; numbers are never changed.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import enum
import json
import math
import os
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from evalwh.errors import UsageError
from rich.console import Console
from rich.markup import escape
from rich.table import Table


# the longest table -f table draws; more rows are a job for -f csv, tsv or json
TABLE_ROWS = 1_000


class Format(str, enum.Enum):
    """Row output formats."""

    table = "table"
    csv = "csv"
    json = "json"
    tsv = "tsv"


@dataclass(frozen=True)
class Rows:
    """A result: column names and row tuples."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]

    def dicts(self) -> list[dict[str, Any]]:
        """Each row as a column -> value mapping."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def _json_value(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _interval(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _blob(bytes(value))
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or Infinity
    return value


def _interval(value: dt.timedelta) -> str:
    """An INTERVAL as ISO 8601 (``P1DT2H3M4.5S``), the form most JSON readers parse."""
    sign = "-" if value < dt.timedelta(0) else ""
    value = abs(value)
    seconds = value.seconds + value.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{sign}P{value.days}DT{int(hours)}H{int(minutes)}M{secs:g}S"
    return text


def _blob(value: bytes) -> str:
    """A BLOB as DuckDB prints it: printable ASCII as is, other bytes as ``\\xNN``."""
    return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02X}" for b in value)


def _flat_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(_json_value(value), ensure_ascii=False)
    if isinstance(value, (dt.datetime, dt.date, dt.time, dt.timedelta, bytes, bytearray, memoryview, uuid.UUID)):
        return str(_json_value(value))
    return str(value)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def spreadsheet_safe(value: Any) -> Any:
    """A text value a spreadsheet would read as a formula, prefixed with ``'``; anything else unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def tsv_field(value: Any) -> str:
    """One tab-separated field: the flat text with backslash, tab and line breaks escaped."""
    return _flat_value(value).translate(TSV_ESCAPES)


def _table_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_table_value(v) for v in value)
    return _flat_value(value)


def write_rows(rows: Rows, fmt: Format, stream: TextIO, safe_csv: bool = False) -> None:
    """Write ``rows`` to ``stream`` in ``fmt``; ``safe_csv`` neutralises formula-looking text cells in csv."""
    if fmt is Format.json:
        stream.write(json.dumps([{k: _json_value(v) for k, v in d.items()} for d in rows.dicts()],
                                ensure_ascii=False, indent=2, allow_nan=False))
        stream.write("\n")
    elif fmt is Format.csv:
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(rows.columns)
        cell = (lambda v: spreadsheet_safe(_flat_value(v)) if isinstance(v, str) else _flat_value(v)) \
            if safe_csv else _flat_value
        writer.writerows([cell(v) for v in row] for row in rows.rows)
    elif fmt is Format.tsv:
        for row in rows.rows:
            stream.write("\t".join(tsv_field(v) for v in row) + "\n")
    else:
        table = Table(*(escape(c) for c in rows.columns), show_edge=True, header_style="bold")
        for row in rows.rows[:TABLE_ROWS]:
            table.add_row(*(escape(_table_value(v)) for v in row))  # data, never Rich markup
        if len(rows.rows) > TABLE_ROWS:  # a table is for reading; past this, a program wants csv or json
            print(f"evalwh: the table shows {TABLE_ROWS:,} of {len(rows.rows):,} rows; -f csv, tsv or json "
                  "prints them all", file=sys.stderr)
        width = None if stream.isatty() else 1000  # piped: never truncate cells
        Console(file=stream, width=width, soft_wrap=False).print(table)


@contextmanager
def atomic_output(path: Path) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` only if the block completes."""
    for folder in (path.parent, *path.parent.parents):
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"{path}: cannot write there, {folder} is not a directory")
            break
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes the file private; a written file follows the umask
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_lines(lines: Sequence[str], stream: TextIO) -> None:
    """Write text lines, each ending in a newline."""
    for line in lines:
        stream.write(line + "\n")
