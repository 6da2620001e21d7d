"""Progress bars appear on a terminal only; captured or piped stderr stays clean."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from evalwh.output.terminal import progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_unless_the_caller_asks_for_one(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress("work", 3, enabled=False) as advance:
        advance(3)
    assert terminal.getvalue() == ""


def test_the_command_line_asks_for_bars_only_on_a_terminal_without_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    from evalwh.app.options import GlobalOptions

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert not GlobalOptions().invocation.progress
    monkeypatch.setattr(sys, "stderr", FakeTerminal())
    assert GlobalOptions().invocation.progress
    assert not GlobalOptions(quiet=True).invocation.progress


def test_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress("materialize", 2, enabled=True) as advance:
        advance(1)
        advance(1)
    assert "materialize" in terminal.getvalue()


def test_cli_output_has_no_control_characters(cli) -> None:
    result = cli("seed")
    assert result.exit_code == 0
    assert "\x1b" not in result.stderr


def test_loading_as_a_library_imports_neither_typer_nor_rich() -> None:
    # a fresh interpreter: this test process has imported the CLI already
    code = ("import sys, evalwh.loader, evalwh.logs, evalwh.warehouse; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'rich', 'click'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
