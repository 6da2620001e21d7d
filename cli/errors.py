"""Every error evalwh reports, and the one mapping from error to exit code.

Library code raises these; only the CLI turns them into ``evalwh: error: ...``
on stderr and an exit code, so tests can call the library and match on types.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, the same for every command."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    WAREHOUSE = 3


class EvalwhError(Exception):
    """Base class: a failure with a message fit for one line on stderr."""


class UsageError(EvalwhError):
    """The command was asked for something that cannot be done (unknown run, bad option value)."""


class InputError(EvalwhError):
    """An input file is missing or malformed; the message names file, row and column."""

    def __init__(self, file: str, message: str, row: int | None = None, column: str | None = None) -> None:
        self.file = file
        self.row = row
        self.column = column
        self.detail = message
        where = [file]
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column}")
        super().__init__(f"{', '.join(where)}: {message}")


class WarehouseError(EvalwhError):
    """The warehouse file cannot be used: missing, locked, or written by a newer evalwh."""


def exit_code_for(error: BaseException) -> ExitCode:
    """Map an exception to the exit code the CLI returns for it."""
    if isinstance(error, WarehouseError):
        return ExitCode.WAREHOUSE
    if isinstance(error, (UsageError, InputError)):
        return ExitCode.USAGE
    return ExitCode.WAREHOUSE
