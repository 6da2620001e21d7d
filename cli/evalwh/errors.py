"""Every error evalwh reports, and the one mapping from error to exit code.

Library code raises these; only the command line turns them into ``evalwh: error: ...`` on stderr
(``evalwh.app.diagnostics``) and an exit code (``exit_code_for``, here), so tests can call the
library and match on types.
"""

from __future__ import annotations

import difflib
import re
import signal
import sys
from collections.abc import Iterable
from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, the same for every command."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    WAREHOUSE = 3
    # a bug in evalwh (an exception nothing expected): one line, never 1, which only a failed gate returns
    INTERNAL = 70
    # stopped with Ctrl-C: the code of a process ended by SIGINT
    INTERRUPTED = 128 + signal.SIGINT
    # the reader of stdout closed it (``evalwh sql ... | head``): the code of a process ended by
    # SIGPIPE, as ``yes | head`` gives, and no message
    PIPE_CLOSED = 128 + signal.SIGPIPE


class EvalwhError(Exception):
    """Base class: a failure with a message fit for one line on stderr."""


class UsageError(EvalwhError):
    """The command was asked for something that cannot be done (unknown run, bad option value)."""


class InputError(EvalwhError):
    """An input file is missing or malformed; the message names file, row and column."""

    def __init__(
        self, file: str, message: str, row: int | None = None, column: str | None = None, line: int | None = None
    ) -> None:
        self.file = file
        self.row = row
        self.column = column
        self.line = line  # the file line of ``row``, given when it is not the obvious one
        self.detail = message
        where = [file]
        if row is not None:
            where.append(f"row {row}" + (f" (line {line})" if line is not None else ""))
        if column is not None:
            where.append(f"column {column}")
        super().__init__(f"{', '.join(where)}: {message}")

    def at_line(self, line: int) -> InputError:
        """The same error, also naming the file line its row starts on."""
        return InputError(self.file, self.detail, row=self.row, column=self.column, line=line)


SHOWN_CHARACTERS = 200


def shortened(value: object) -> object:
    """A long text value cut to the 200 characters a message shows; anything else unchanged."""
    if isinstance(value, str) and len(value) > SHOWN_CHARACTERS:
        return value[:SHOWN_CHARACTERS] + "…"
    return value


class WarehouseError(EvalwhError):
    """The warehouse file cannot be used: missing, locked, or written by a newer evalwh."""


def exit_code_for(error: BaseException) -> ExitCode:
    """The exit code the command line returns for ``error``: the one place every code is decided.

    An error evalwh reports (usage, input, warehouse), a file that cannot be read or written, text that
    is not UTF-8 and an error of DuckDB's each have their code; anything else is a bug (70).
    """
    if isinstance(error, WarehouseError):
        return ExitCode.WAREHOUSE
    if isinstance(error, BrokenPipeError):
        return ExitCode.PIPE_CLOSED
    if isinstance(error, (UsageError, InputError, OSError, UnicodeDecodeError)):
        return ExitCode.USAGE
    if isinstance(error, EvalwhError) or _is_duckdb_error(error):
        return ExitCode.WAREHOUSE
    if isinstance(error, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    return ExitCode.INTERNAL


def _is_duckdb_error(error: BaseException) -> bool:
    """Whether ``error`` is one of DuckDB's. A process that never imported DuckDB raised none, so
    the question does not import it (a bare command stays cheap)."""
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(error, duckdb.Error)


def os_error_message(error: OSError) -> str:
    """``path: reason`` for a file that could not be read or written."""
    reason = error.strerror or str(error)
    return f"{error.filename}: {reason.lower()}" if error.filename else reason


def closest(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known name closest to ``name``, or nothing."""
    options = sorted(known)
    same_case = [k for k in options if k.lower() == name.lower()]
    match = same_case or difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


# every character str.splitlines() breaks a line at
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_ESCAPE_BREAKS = str.maketrans({ch: repr(ch)[1:-1] for ch in LINE_BREAKS})
_SURROGATES = re.compile("[\ud800-\udfff]")
_ESCAPED_BYTE = re.compile(r"\\udc([89a-f][0-9a-f])")


def _surrogate(match: re.Match[str]) -> str:
    point = ord(match.group())
    # a byte that was not UTF-8, carried by Python as U+DC80..U+DCFF (a file name, a header): the byte
    return f"\\x{point - 0xDC00:02x}" if 0xDC80 <= point <= 0xDCFF else f"\\u{point:04x}"


def one_line(message: str) -> str:
    """The message with line breaks written as escapes, so an error is always one line, and a lone
    surrogate as the byte it stands for (``\\xc4``) or its escape, so the line can be printed."""
    # a surrogate already written as an escape by repr() (a name quoted in the message): the byte too
    escaped = _ESCAPED_BYTE.sub(lambda m: "\\x" + m.group(1), message.translate(_ESCAPE_BREAKS))
    return _SURROGATES.sub(_surrogate, escaped)
