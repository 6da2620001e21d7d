"""What one library call may do beyond its arguments: wait for a locked warehouse, tell a person, draw a bar.

The library never prints. A call that can take long or has news for a person (a load, a log import,
materialize, a report, opening a warehouse another process holds) takes an ``Invocation``: how many
seconds to wait for the lock, where a message goes, whether progress bars are drawn. The default
waits for nothing and shows nothing, so a library call from a notebook or a test is silent; the
command line builds one from ``--wait`` and ``--quiet`` (``evalwh.app.diagnostics``) and passes it
down, as one object, instead of setting module-level switches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


def _ignore(message: str) -> None:
    """The notice of a call nobody is watching."""


@dataclass(frozen=True)
class Invocation:
    """The settings of one call into the library that are not its data."""

    wait: float = 0.0  # seconds to wait for a warehouse another process is writing; 0 fails at once
    notify: Callable[[str], None] = _ignore  # a message for the person who started the call
    progress: bool = False  # draw progress bars (on stderr) for long work
    # DuckDB's memory limit for the work of a load or an import ("500MB", "2GB"); past it DuckDB spills
    # to its temporary directory. None: the default of that work (LOAD_MEMORY_LIMIT, the import's own)
    memory_limit: str | None = None


QUIET = Invocation()
