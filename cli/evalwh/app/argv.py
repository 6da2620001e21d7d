"""Argv handling: global options may follow the command; a command-line error is one line.

``evalwh --db x.duckdb runs`` and ``evalwh runs --db x.duckdb`` mean the same: the
command group moves the global options it finds after the command to the front
before Click parses the line (``evalwh.app.options.GlobalOptions`` holds what they say). An error
of the command line itself (an unknown option, a bad value) is one ``evalwh: error:`` line like
every other error, not Typer's framed panel.
"""

from __future__ import annotations

import re
from typing import Any, cast

import typer
from typer.core import TyperGroup

from evalwh.errors import one_line

# Click's base error (an unknown option, a bad value), reached through the error class Typer exports
# (typer.BadParameter is one): Typer ships Click inside itself and names its base class nowhere public
ClickException: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

# global option -> whether it takes a value
GLOBAL_OPTIONS: dict[str, bool] = {"--db": True, "--wait": True, "--safe-csv": False, "--quiet": False, "-q": False,
                                   "--memory-limit": True, "--data-path": True}



def hoist(args: list[str]) -> list[str]:
    """``args`` with every global option after the first non-option word (the command) moved before it.

    ``--`` ends the scan: what follows it is never an option.
    """
    front: list[str] = []
    rest: list[str] = []
    seen_command = False
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            rest.extend(args[i:])
            break
        name = word.split("=", 1)[0]
        if seen_command and name in GLOBAL_OPTIONS:
            takes_value = GLOBAL_OPTIONS[name] and "=" not in word
            front.extend(args[i:i + 2] if takes_value else [word])
            i += 2 if takes_value else 1
            continue
        if not seen_command:
            if name in GLOBAL_OPTIONS:
                takes_value = GLOBAL_OPTIONS[name] and "=" not in word
                front.extend(args[i:i + 2] if takes_value else [word])
                i += 2 if takes_value else 1
                continue
            if not word.startswith("-"):
                seen_command = True
        rest.append(word)
        i += 1
    return front + rest


class GlobalOptionsGroup(TyperGroup):
    """The evalwh command group: global options may come before or after the command, and an error of
    the command line is one line.

    Click raises such an error while this group parses its own options (``make_context``) or picks and
    parses a command (``invoke``); the group writes it here and exits 2, so Typer's framed panel, and
    the Rich code behind it, is never loaded for it.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist(list(args)))

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except ClickException as error:
            raise _usage_exit(error) from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except ClickException as error:
            raise _usage_exit(error) from None


def one_line_error(error: Any) -> str:
    """A command-line error (an unknown option or command, a bad or missing value) as one line, naming
    the --help that explains."""
    ctx = getattr(error, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    # Click lists a missing argument's choices one a line, each after a tab: here one after another
    message = re.sub(r"\n\t", " ", error.format_message())
    # Typer from 0.29 checks values with pydantic, which puts its own kind of error before the message
    message = message.replace(": Value error, ", ": ")
    return f"evalwh: error: {one_line(message)}{hint}"


def _usage_exit(error: Any) -> BaseException:
    """What the group raises for a command-line error: the error itself when it is a bare group's
    help (already printed), else an exit with Click's code (2) after the one line on stderr."""
    if type(error).__name__ == "NoArgsIsHelpError":  # a bare group's help, already printed
        return cast(BaseException, error)
    typer.echo(one_line_error(error), err=True)
    return typer.Exit(error.exit_code)
