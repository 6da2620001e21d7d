"""Where in a text file a problem is, when DuckDB's reader does not say.

DuckDB skips blank lines and lets quoted fields span lines, so "row 7" of a
CSV is not always line 8. These helpers re-read the file with Python's csv
module, only on the error path, to give the line a row starts on, the row and
column of a byte that is not UTF-8, and the line of a quote that never closes.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evalwh.loader.encoding import open_bytes, open_text, readable_here


@contextmanager
def _any_field_size() -> Iterator[None]:
    """Let the csv module read fields of any length (DuckDB has its own limit)."""
    previous = csv.field_size_limit(sys.maxsize)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def dialect(delim: str) -> dict[str, Any]:
    """Python's csv options for a file of this delimiter, as DuckDB reads it: TSV has no quoting."""
    if delim == "\t":
        return {"delimiter": delim, "quoting": csv.QUOTE_NONE, "strict": True}
    return {"delimiter": delim, "quotechar": '"', "doublequote": True, "strict": True}


def csv_rows(path: Path, delim: str) -> Iterator[tuple[int, list[str]]]:
    """``(line the row starts on, fields)`` of every non-blank row after the header, as DuckDB counts rows.

    Bytes that are not UTF-8 come back as surrogates (``surrogateescape``).
    """
    with _any_field_size(), open_text(path, errors="surrogateescape") as handle:
        reader = csv.reader(handle, **dialect(delim))
        header_seen = False
        while True:
            start = reader.line_num + 1
            try:
                fields = next(reader)
            except StopIteration:
                return
            if not fields:
                continue
            if not header_seen:
                header_seen = True
                yield 0, fields  # the header, line numbers of rows count from it
                continue
            yield start, fields


def csv_line_of_row(path: Path, delim: str, row: int) -> int | None:
    """The line data row ``row`` (1-based, header excluded) starts on, or None if the file cannot say."""
    if not readable_here(path):
        return None
    try:
        for number, (start, _) in enumerate(csv_rows(path, delim)):
            if number == row:
                return start
    except (csv.Error, OSError, EOFError):
        return None
    return None


def jsonl_line_of_row(path: Path, row: int) -> int | None:
    """The line of the ``row``-th non-blank line of a JSON-lines file."""
    if not readable_here(path):
        return None
    seen = 0
    with open_bytes(path) as handle:
        for line_no, raw in enumerate(handle, start=1):
            if raw.strip():
                seen += 1
                if seen == row:
                    return line_no
    return None


def jsonl_record(path: Path, row: int) -> object:
    """The ``row``-th non-blank line of a JSON-lines file, parsed (None where it cannot be read or parsed):
    what an error message looks into to tell a key that is absent from one whose value is null."""
    if not readable_here(path):
        return None
    import json

    seen = 0
    with open_bytes(path) as handle:
        for raw in handle:
            if raw.strip():
                seen += 1
                if seen == row:
                    try:
                        return json.loads(raw)
                    except ValueError:
                        return None
    return None


def csv_bad_utf8(path: Path, delim: str) -> tuple[int, str, int] | None:
    """``(row, column, line)`` of the first field holding bytes that are not UTF-8, or None."""
    if not readable_here(path):
        return None
    try:
        rows = csv_rows(path, delim)
        _, header = next(rows)
        for number, (start, fields) in enumerate(rows, start=1):
            for index, value in enumerate(fields):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    column = header[index] if index < len(header) else f"#{index + 1}"
                    return number, column, start
    except (csv.Error, StopIteration, OSError, EOFError):
        return None
    return None


def csv_syntax_error(path: Path, delim: str) -> str | None:
    """``line N: what is wrong`` for the first CSV syntax error Python's strict reader finds, or None."""
    if not readable_here(path):
        return None
    start = 1
    try:
        with _any_field_size(), open_text(path, errors="replace") as handle:
            reader = csv.reader(handle, **dialect(delim))
            while True:
                start = reader.line_num + 1
                if next(reader, None) is None:
                    return None
    except (OSError, EOFError):
        return None
    except csv.Error as exc:
        if "unexpected end of data" in str(exc) or "EOF" in str(exc):
            return f"line {start}: a quoted field starts on this line and is never closed"
        return f"line {start}: {exc}"
