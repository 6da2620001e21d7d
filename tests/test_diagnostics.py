"""One home for exit codes and stderr: a bug exits 70 with one line, so exit 1 only ever means a failed gate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from evalwh.errors import ExitCode, InputError, UsageError, WarehouseError, exit_code_for
from evalwh.invocation import Invocation
from evalwh.loader import load_run
from evalwh.warehouse import open_warehouse
from tests.conftest import CHAPTER3


@pytest.mark.parametrize(("error", "code"), [
    (UsageError("x"), 2),
    (InputError("f.csv", "bad", row=1, column="c"), 2),
    (FileNotFoundError(2, "No such file", "f.csv"), 2),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 2),
    (WarehouseError("locked"), 3),
    (duckdb.IOException("disk"), 3),
    (BrokenPipeError(), 141),
    (KeyboardInterrupt(), 130),
    (KeyError("threshold"), 70),
    (ZeroDivisionError(), 70),
])
def test_exit_code_for_decides_every_code(error: BaseException, code: int) -> None:
    assert int(exit_code_for(error)) == code


def test_only_a_failed_gate_is_one() -> None:
    assert [c for c in ExitCode if c == 1] == [ExitCode.CHECK_FAILED]


def test_an_unexpected_exception_is_one_line_and_exit_70(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("seed").exit_code == 0

    def broken(con: object, run: str) -> None:
        raise KeyError("threshold")

    monkeypatch.setattr("evalwh.queries.sweep", broken)
    result = cli("sweep")
    assert result.exit_code == 70
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("evalwh: internal error: KeyError: 'threshold' at test_diagnostics.py:")
    assert "please report it" in result.stderr


def test_the_installed_entry_point_turns_a_crash_into_70(tmp_path: Path) -> None:
    # main() itself, in its own process: the crash handler, not the test runner, prints the line
    code = ("import sys, evalwh.queries as q; from evalwh.app import main\n"
            "def boom(con, run): raise RuntimeError('inside sweep')\n"
            "q.sweep = boom\n"
            f"sys.argv = ['evalwh', '--db', {str(tmp_path / 'w.duckdb')!r}, '--quiet', 'seed']\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code in (0, None), exc.code\n"
            f"sys.argv = ['evalwh', '--db', {str(tmp_path / 'w.duckdb')!r}, 'sweep']\n"
            "main()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 70, done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [done.stderr.strip()]  # one line
    assert done.stderr.startswith("evalwh: internal error: RuntimeError: inside sweep at <string>:2")


def test_the_library_never_prints(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    load_run(db, CHAPTER3, run="a")
    with open_warehouse(db):
        pass
    assert capsys.readouterr() == ("", "")


def test_the_lock_wait_notice_goes_to_the_callers_callback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "w.duckdb"
    load_run(db, CHAPTER3, run="a")
    heard: list[str] = []
    holder = duckdb.connect(str(db))  # another writer holds the file
    try:
        code = ("import sys; from pathlib import Path; from evalwh.invocation import Invocation; "
                "from evalwh.warehouse import open_warehouse\n"
                "heard = []\n"
                "try:\n"
                f"    with open_warehouse(Path({str(db)!r}), write=True, invocation=Invocation(wait=0.3, "
                "notify=heard.append)): pass\n"
                "except Exception as exc: print(type(exc).__name__)\n"
                "print(heard)\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    finally:
        holder.close()
    heard = done.stdout.splitlines()
    assert heard[0] == "WarehouseError"
    assert "is locked by another process; waiting up to 0.3 s" in heard[1]
    assert done.stderr == ""  # the library said it to the callback, not to stderr
    assert Invocation().wait == 0  # the library's default fails at once


def test_a_read_command_past_its_memory_limit_fails_naming_the_option(tmp_path: Path) -> None:
    # in a process of its own, which loads DuckDB's engine but not the duckdb package: its errors are
    # still DuckDB's (exit 3, one line naming the option), never a crash, and no report is half written
    from tests.test_installed import installed_command

    db, report = tmp_path / "w.duckdb", tmp_path / "r.html"
    command = installed_command()
    seeded = subprocess.run([command, "--db", str(db), "--quiet", "seed"], capture_output=True, text=True)
    assert seeded.returncode == 0, seeded.stderr
    for args in (["report", "-o", str(report)], ["check", "--min", "supported_share=0"]):
        done = subprocess.run([command, "--db", str(db), "--memory-limit", "1MB", *args], capture_output=True,
                              text=True)
        assert (done.returncode, done.stdout) == (3, ""), (args, done.stderr)
        assert done.stderr.splitlines() == [done.stderr.strip()]
        assert done.stderr.startswith("evalwh: error: Out of Memory Error: ")
        assert "--memory-limit SIZE" in done.stderr
    assert not report.exists()
    # the same commands within the views' default cap
    assert subprocess.run([command, "--db", str(db), "report", "-o", str(report)], capture_output=True).returncode == 0
