"""What a person at a terminal sees: the table of ``-f table`` and progress bars, drawn by Rich.

This is the only module that imports Rich, and it imports it inside the functions that draw, so a
library call or a piped command that draws nothing never loads it. Bars go to stderr, and only when
the caller asks for them (``Invocation.progress``: the command line asks when stderr is a terminal
and ``--quiet`` is off), so piped or captured output gets no control characters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from evalwh.output.rows import Rows

# the longest table -f table draws; more rows are a job for -f csv, tsv, json or parquet
TABLE_ROWS = 1_000


def _table_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        # a count stored as a number prints as one (20, not 20.000); a share keeps three decimals
        return str(int(value)) if math.isfinite(value) and value.is_integer() else f"{value:.3f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_table_value(v) for v in value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02X}" for b in bytes(value))
    return str(value)


def write_table(rows: Rows, stream: TextIO) -> int:
    """Draw ``rows`` as a table for a person: at most TABLE_ROWS rows, cells never cut when piped.

    Returns how many rows were left out (0 when the table shows them all); the caller says so.
    """
    from rich.console import Console
    from rich.table import Table

    table = Table(*rows.columns, show_edge=True, header_style="bold")
    for row in rows.rows[:TABLE_ROWS]:
        table.add_row(*(_table_value(v) for v in row))
    width = None if stream.isatty() else 1000  # piped: never truncate cells
    # every cell is data, printed as written: no Rich markup ([bold]) and no emoji codes (:smile:, and Rich's
    # emoji table is never loaded)
    Console(file=stream, width=width, soft_wrap=False, emoji=False, markup=False).print(table)
    return max(0, len(rows.rows) - TABLE_ROWS)


def _no_progress(n: int = 1) -> None:
    """The advance() of work nobody is watching."""


@contextmanager
def progress(description: str, total: int, *, enabled: bool) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draws a bar of ``total`` steps on stderr when ``enabled``, nothing otherwise."""
    if not enabled or total <= 0:
        yield _no_progress
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1) -> None:
            bar.advance(task, n)

        yield advance
