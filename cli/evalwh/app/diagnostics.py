"""Everything evalwh writes to stderr, and the handler that turns every exception into one line and a code.

stdout is data; stderr is for people. A message is ``evalwh: ...``, an error ``evalwh: error: ...``,
a bug ``evalwh: internal error: ...`` — always one line, never a traceback. The exit code comes from
``evalwh.errors.exit_code_for`` alone, so 1 can only mean that a ``check`` gate failed: an
exception nothing expected exits 70.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from evalwh import __version__
from evalwh.errors import EvalwhError, ExitCode, exit_code_for, one_line, os_error_message

F = TypeVar("F", bound=Callable[..., None])

REPORT_BUGS = "please report it with the command that raised it"


def notice(message: str) -> None:
    """``evalwh: message`` on stderr."""
    typer.echo(f"evalwh: {one_line(message)}", err=True)


def error(message: str) -> None:
    """``evalwh: error: message`` on stderr."""
    typer.echo(f"evalwh: error: {one_line(message)}", err=True)


def fail(message: str, code: ExitCode) -> typer.Exit:
    """Print ``evalwh: error: message`` on stderr and return the Exit to raise."""
    error(message)
    return typer.Exit(int(code))


def message_for(exc: BaseException) -> str:
    """The one line an expected error is reported with."""
    if isinstance(exc, EvalwhError):
        return str(exc)
    if isinstance(exc, UnicodeDecodeError):  # text read past the UTF-8 checks (a log value, a settings file)
        return f"text is not valid UTF-8 (byte {exc.start + 1}: {exc.reason})"
    if isinstance(exc, OSError):  # a file evalwh was asked to read or write: unreadable, or no such folder
        return os_error_message(exc)
    duckdb = sys.modules.get("duckdb")  # loaded by whatever raised its errors; never imported here for the question
    if duckdb is not None and isinstance(exc, duckdb.OutOfMemoryException):
        return f"{str(exc).splitlines()[0]} (give DuckDB more with --memory-limit SIZE, or free disk for its spill files)"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def crash(exc: BaseException) -> ExitCode:
    """Report a bug: one line naming the exception, where it was raised and the version; returns 70."""
    where = ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
    detail = str(exc).splitlines()[0] if str(exc) else ""
    typer.echo(f"evalwh: internal error: {type(exc).__name__}{': ' + detail if detail else ''}{where} "
               f"(evalwh {__version__}; {REPORT_BUGS})", err=True)
    return ExitCode.INTERNAL


def stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so output still buffered for a closed pipe is dropped at exit, not reported."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def handles_errors(command: F) -> F:
    """Turn every exception of a command into one stderr line and the exit code ``exit_code_for`` gives it."""

    @functools.wraps(command)
    def wrapper(*args: object, **kwargs: object) -> None:
        try:
            command(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except BrokenPipeError as exc:  # stdout's reader has all it wants: stop quietly, as `yes | head` does
            stdout_to_devnull()
            raise typer.Exit(int(exit_code_for(exc))) from None
        except KeyboardInterrupt as exc:
            notice("interrupted")
            raise typer.Exit(int(exit_code_for(exc))) from None
        except Exception as exc:
            code = exit_code_for(exc)
            if code is ExitCode.INTERNAL:
                raise typer.Exit(int(crash(exc))) from None
            raise fail(message_for(exc), code) from None

    return wrapper  # type: ignore[return-value]
