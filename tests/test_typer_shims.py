"""The Typer internals evalwh's command group overrides exist and are ours, so a Typer release that
renames them fails here, not silently in `import evalwh.app`."""

from __future__ import annotations

import subprocess
import sys

from typer._click.exceptions import ClickException, NoArgsIsHelpError
from typer.core import TyperGroup

from evalwh.app import argv


def test_the_overridden_typer_methods_exist_and_are_ours() -> None:
    # the group catches Click's errors where Typer's parsing raises them
    assert issubclass(NoArgsIsHelpError, ClickException)
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


def test_the_command_a_line_names() -> None:
    # global options and their values, before or after the command, are skipped; an other option first
    # (the group's --help) names none
    assert argv.command_word(["--db", "x.duckdb", "-q", "runs", "-f", "csv"]) == "runs"
    assert argv.command_word(["runs", "--db", "x.duckdb"]) == "runs"
    assert argv.command_word(["--db=x.duckdb", "--wait", "5", "logs", "import", "a.jsonl"]) == "logs"
    assert argv.command_word(["--memory-limit", "runs", "load", "d"]) == "load"  # "runs" is the option's value
    for line in ([], ["--help"], ["-q"], ["--", "runs"], ["--install-completion"]):
        assert argv.command_word(line) is None, line


def test_typer_builds_only_the_named_command_and_it_behaves_as_in_the_whole_app(runner) -> None:
    import typer.main

    from evalwh.app import app

    names = [c.name or typer.main.get_command_name(c.callback.__name__) for c in app.registered_commands]
    names += [g.name for g in app.registered_groups]
    assert {"load", "runs", "check", "logs"} <= set(names) and len(names) > 10
    for name in names:
        one = argv.narrowed(app, ["--db", "w.duckdb", name, "--help"], {})
        built = typer.main.get_command(one)
        assert list(built.commands) == [name]  # type: ignore[attr-defined]
        # the same help (its options, their defaults) and the same command-line error as the whole app's
        for line in ([name, "--help"], [name, "--no-such-option"]):
            want, got = runner.invoke(app, line), runner.invoke(one, line)
            assert (got.exit_code, got.stdout, got.stderr) == (want.exit_code, want.stdout, want.stderr), line
    # no command, an unknown one, or a shell asking for completions: the whole app
    assert argv.narrowed(app, ["--help"], {}) is app
    assert argv.narrowed(app, ["runz"], {}) is app
    assert argv.narrowed(app, ["runs"], {"_EVALWH_COMPLETE": "bash_complete"}) is app
