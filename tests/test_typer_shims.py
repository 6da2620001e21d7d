"""The Typer internals evalwh's command group overrides exist and are ours, so a Typer release that
renames them fails here, not silently in `import evalwh.app`."""

from __future__ import annotations

import subprocess
import sys

from typer.core import TyperGroup

from evalwh.app import argv


def test_the_overridden_typer_methods_exist_and_are_ours() -> None:
    # the group catches Click's errors where Typer's parsing raises them, a bare group's help among them
    def subclasses(cls: type[Exception]) -> list[type[Exception]]:
        found = [cls]
        for sub in cls.__subclasses__():
            found += subclasses(sub)
        return found

    assert argv.ClickException.__name__ == "ClickException"
    assert "NoArgsIsHelpError" in {c.__name__ for c in subclasses(argv.ClickException)}
    for method in ("make_context", "invoke", "parse_args"):
        assert getattr(argv.GlobalOptionsGroup, method) is not getattr(TyperGroup, method)


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


def test_a_command_line_error_loads_no_rich_help_code(tmp_path) -> None:
    """The one-line error is written by the group itself: Typer's Rich formatter is never imported."""
    probe = ("import sys\nfrom evalwh.app import main\nsys.argv = ['evalwh', 'runs', '--no-such-option']\n"
             "try:\n    main()\nexcept SystemExit as exit:\n"
             "    print(exit.code, 'typer.rich_utils' in sys.modules, 'duckdb' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout.split() == ["2", "False", "False"], done.stderr
    assert done.stderr.startswith("evalwh: error: No such option: --no-such-option")


