"""Argv handling: global options may follow the command; a command-line error is one line; Typer builds
only the command a line names.

``evalwh --db x.duckdb runs`` and ``evalwh runs --db x.duckdb`` mean the same: the
command group moves the global options it finds after the command to the front
before Click parses the line (``evalwh.app.options.GlobalOptions`` holds what they say). An error
of the command line itself (an unknown option, a bad value) is one ``evalwh: error:`` line like
every other error, not Typer's framed panel.

Typer turns every registered function into a Click command before it parses a line, which
costs a bare command more than its own work; ``narrowed`` hands Typer the one command (or
command group) the line names, and the whole app for anything else (no command, an unknown
one, the group's own help, shell completion).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import typer
from typer.core import TyperGroup
from typer.main import get_command_name

from evalwh.errors import one_line

# Click's base error (an unknown option, a bad value), reached through the error class Typer exports
# (typer.BadParameter is one): Typer ships Click inside itself and names its base class nowhere public
ClickException: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

# global option -> whether it takes a value
GLOBAL_OPTIONS: dict[str, bool] = {"--db": True, "--wait": True, "--safe-csv": False, "--quiet": False, "-q": False,
                                   "--memory-limit": True}



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


def command_word(args: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is neither a global option nor such an
    option's value (None when an other option comes first, or no word)."""
    words = hoist(list(args))
    i = 0
    while i < len(words):
        word = words[i]
        name = word.split("=", 1)[0]
        if name in GLOBAL_OPTIONS:
            i += 2 if GLOBAL_OPTIONS[name] and "=" not in word else 1
            continue
        return None if word.startswith("-") else word
    return None


def narrowed(app: typer.Typer, args: Sequence[str], environ: Mapping[str, str]) -> typer.Typer:
    """``app`` holding only the command or command group ``args`` names, so Typer builds that one alone;
    ``app`` itself when the line names none of them, or a shell asks for completions (``environ``)."""
    word = command_word(args)
    if word is None or "_EVALWH_COMPLETE" in environ:
        return app
    commands = [c for c in app.registered_commands
                if c.callback is not None and (c.name or get_command_name(c.callback.__name__)) == word]
    groups = [g for g in app.registered_groups if g.name == word]
    if not commands and not groups:
        return app
    one = copy.copy(app)
    one.registered_commands, one.registered_groups = commands, groups
    return one


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
    return f"evalwh: error: {one_line(message)}{hint}"


def _usage_exit(error: Any) -> BaseException:
    """What the group raises for a command-line error: the error itself when it is a bare group's
    help (already printed), else an exit with Click's code (2) after the one line on stderr."""
    if type(error).__name__ == "NoArgsIsHelpError":  # a bare group's help, already printed
        return cast(BaseException, error)
    typer.echo(one_line_error(error), err=True)
    return typer.Exit(error.exit_code)
