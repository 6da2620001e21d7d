"""The Typer internals evalwh's display shims patch exist and are patched, so a Typer release that
renames them fails here, not silently in `import evalwh.app`."""

from __future__ import annotations

from typer import rich_utils
from typer.core import TyperOption

from evalwh.app import argv


def test_the_patched_typer_attributes_exist_and_are_ours() -> None:
    assert callable(argv._display_type_rich)  # Typer's own, kept for options that take a value
    assert TyperOption.display_type_rich is argv._flags_show_no_type
    assert rich_utils.rich_format_error is argv._one_line_error


def test_help_lists_a_flag_without_a_value_and_an_option_with_one(runner) -> None:
    from evalwh.app import app

    result = runner.invoke(app, ["load", "--help"])
    assert result.exit_code == 0
    replace_line = next(line for line in result.stdout.splitlines() if line.lstrip("│ ").startswith("--replace"))
    assert "<bool>" not in replace_line  # what Typer prints for a flag without the shim
    assert "<str>" in next(line for line in result.stdout.splitlines() if line.lstrip("│ ").startswith("--label"))


def test_a_command_line_error_is_one_line(runner) -> None:
    from evalwh.app import app

    result = runner.invoke(app, ["runs", "--no-such-option"])
    assert result.exit_code == 2
    assert result.stderr.startswith("evalwh: error: ") and result.stderr.count("\n") == 1
    assert "(see 'evalwh runs --help')" in result.stderr
