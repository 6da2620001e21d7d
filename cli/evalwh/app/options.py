"""The options many commands share, and the global options of one command line as one object.

``--run``, ``--baseline``, ``-f/--format`` (always the output format) and ``-o/--output`` mean the same
in every command that takes them. ``GlobalOptions`` holds what ``--db``, ``--wait``, ``--safe-csv``
and ``--quiet`` said; each command reads it from its Typer context and hands the library an
``Invocation`` built from it, rather than setting module-level switches.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from evalwh.app.diagnostics import notice
from evalwh.invocation import Invocation
from evalwh.location import Location, as_location, is_lake
from evalwh.output.rows import Format

DEFAULT_DB = Path("evalwh.duckdb")


@dataclass(frozen=True)
class GlobalOptions:
    """The global options of one command line."""

    warehouse: str = str(DEFAULT_DB)  # --db as given
    data_path: str | None = None  # --data-path: where a new lake's Parquet files go
    data_path_from_env: bool = False  # given by EVALWH_DATA_PATH, which a file --db ignores
    wait: float = 30.0
    safe_csv: bool = False
    quiet: bool = False
    memory_limit: str | None = None

    @property
    def db(self) -> Location:
        """The warehouse --db names (a file, or a lake with --data-path). EVALWH_DATA_PATH, set for a team's
        lake, says nothing about a file; --data-path given with a file is an error."""
        ignored = self.data_path_from_env and not is_lake(self.warehouse)
        return as_location(self.warehouse, None if ignored else self.data_path)

    def note(self, message: str) -> None:
        """A message for the person at the terminal (stderr, so stdout stays data); none with --quiet."""
        if not self.quiet:
            notice(message)

    @property
    def invocation(self) -> Invocation:
        """What the library may do in this command: wait --wait seconds, tell the person, draw bars on a
        terminal (never when stderr is piped or captured, nor with --quiet)."""
        return Invocation(wait=self.wait, notify=self.note, progress=sys.stderr.isatty() and not self.quiet,
                          memory_limit=self.memory_limit)


def global_options(ctx: typer.Context) -> GlobalOptions:
    """The global options of the command line ``ctx`` belongs to."""
    found = ctx.find_object(GlobalOptions)
    return found if found is not None else GlobalOptions()


RunOption = Annotated[
    str, typer.Option("--run", "-r", help="Run id, or 'latest' for the most recently created run.")
]
BaselineOption = Annotated[
    Optional[str],
    typer.Option("--baseline", "-b", metavar="RUN",
                 help="The run to compare with (default: the previous run of the same dataset)."),
]
ConfigOption = Annotated[
    Optional[Path],
    typer.Option("--config", "-c", metavar="FILE", dir_okay=False,
                 help="Gates from this file's [check] table (default: ./evalwh.toml when there is one)."),
]
NoConfigOption = Annotated[bool, typer.Option("--no-config", help="Ignore evalwh.toml: only the flags' gates.")]
FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[
    Optional[Path],
    typer.Option("--output", "-o", help="Write to this file (whole or not at all) instead of stdout; - is stdout.",
                 dir_okay=False),
]


def to_file(output: Path | None) -> Path | None:
    """The file -o names, or None for stdout (no -o, or -o -)."""
    return None if output is None or str(output) == "-" else output


class DiffFormat(str, Enum):
    """Diff output formats."""

    table = "table"
    csv = "csv"
    json = "json"
    md = "md"


class CheckFormat(str, Enum):
    """Check output formats."""

    text = "text"
    json = "json"
    md = "md"
    junit = "junit"


class ReportFormat(str, Enum):
    """Report formats."""

    html = "html"
    md = "md"


class Dialect(str, Enum):
    """SQL dialects of `evalwh views`."""

    duckdb = "duckdb"
    spark = "spark"


class ExportFormat(str, Enum):
    """Export file formats."""

    parquet = "parquet"
    csv = "csv"


class ListFormat(str, Enum):
    """How a command that writes files lists them: the row formats that print as text."""

    table = "table"
    csv = "csv"
    json = "json"
    tsv = "tsv"


class LogView(str, Enum):
    """The production-log views `evalwh logs show` prints."""

    health = "health"
    replay = "replay"
    coverage = "coverage"
    daily = "daily"
