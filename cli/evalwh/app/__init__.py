"""The command line: the only code that imports Typer (and Click).

Lives here: the commands (``commands``), the options they share and the global options of one
command line (``options``), argv handling and Typer display shims (``argv``), and everything
written to stderr with the handler that turns exceptions into exit codes (``diagnostics``).
May import: anything in evalwh. Nothing in evalwh imports it (``tests/test_layers.py``).

``main`` answers ``evalwh --version`` before importing the commands (and with them Typer), so the
bare question costs a few milliseconds; ``app`` is imported on first use. The commands import the
library when they run, so ``--help`` loads neither DuckDB nor the loader, logs or report code.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from evalwh import __version__


def version_line() -> str:
    """What ``evalwh --version`` prints."""
    from importlib.metadata import version

    return f"evalwh {__version__} (duckdb {version('duckdb')})"


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(version_line() + "\n")
        return
    from evalwh.app.commands import main as run

    run()


if TYPE_CHECKING:  # the Typer app, imported when first asked for (a bare --version never builds it)
    from evalwh.app.commands import app as app


def __getattr__(name: str) -> Any:
    if name == "app":
        from evalwh.app.commands import app

        return app
    raise AttributeError(f"module 'evalwh.app' has no attribute {name!r}")


__all__ = ["app", "main", "version_line"]
