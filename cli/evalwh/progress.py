"""Progress bars for long work, on stderr, only when stderr is a terminal.

Piped or captured output (CI logs, tests, `2>file`) gets no bar and no
control characters, so stdout and stderr stay clean data and messages.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from evalwh.switches import settings


def progress_enabled() -> bool:
    """A bar is drawn only for a person watching a terminal who did not ask for --quiet."""
    return sys.stderr.isatty() and not settings.quiet


def _no_progress(n: int = 1) -> None:
    """The advance() of work nobody is watching."""


@contextmanager
def progress(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``; draws a bar of ``total`` steps on a terminal, nothing otherwise."""
    if not progress_enabled() or total <= 0:
        yield _no_progress
        return
    # Rich is imported only for a bar that is drawn: a library call or a piped command never loads it
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
