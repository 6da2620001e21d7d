"""The installed `evalwh` command as a subprocess: from another directory, and into a pipe closed early."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DUCKDB_1
from tests.test_cli import EVIDENCE

# numpy, pandas and pyarrow, unless DuckDB 1.4's Python layer imports them (it does, where they are
# installed, for every query with parameters)
DATAFRAME_LIBRARIES = () if DUCKDB_1 else ("numpy", "pandas", "pyarrow")


def installed_command() -> str:
    beside_python = Path(sys.executable).parent / "evalwh"
    found = str(beside_python) if beside_python.exists() else shutil.which("evalwh")
    assert found, "the evalwh command is not installed"
    return found


def test_installed_command_works_from_any_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "EVALWH_DB"}
    command = installed_command()
    seeded = subprocess.run([command, "seed"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert seeded.returncode == 0, seeded.stderr
    assert (tmp_path / "evalwh.duckdb").exists()
    result = subprocess.run([command, "evidence"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, EVIDENCE, "")


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """`evalwh sql ... | head -1`: no error line, and the exit code of a process ended by SIGPIPE."""
    env = {k: v for k, v in os.environ.items() if k != "EVALWH_DB"}
    command = installed_command()
    assert subprocess.run([command, "seed"], cwd=tmp_path, env=env, capture_output=True, check=False).returncode == 0
    for fmt in ("csv", "json"):
        process = subprocess.Popen(
            [command, "sql", "SELECT range AS n FROM range(2000000)", "-f", fmt], cwd=tmp_path, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # what head does after its first line
        stderr = process.stderr.read()
        assert first in (b"n\n", b"[\n")
        assert (process.wait(timeout=120), stderr) == (141, b""), fmt


# runs `evalwh ARGS` in a new interpreter, then prints on stderr the modules of PACKAGES and those starting with
# PREFIXES that it imported
IMPORT_PROBE = ("import sys\nfrom evalwh.app import main\npackages, prefixes, *args = sys.argv[1:]\n"
                "sys.argv = ['evalwh', *args]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
                "heavy = sorted(m for m in sys.modules if m.split('.')[0] in packages.split(',')"
                " or m.startswith(tuple(p for p in prefixes.split(',') if p)))\n"
                "print('loaded:', heavy, file=sys.stderr)")


def imported_by(args: list[str], packages: tuple[str, ...], prefixes: tuple[str, ...],
                cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The finished `evalwh ARGS` and the modules of ``packages`` and under ``prefixes`` it imported."""
    done = subprocess.run([sys.executable, "-c", IMPORT_PROBE, ",".join(packages), ",".join(prefixes), *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("loaded: "), done.stderr
    return done, ast.literal_eval(last.removeprefix("loaded: "))


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["load", "--help"], ["logs", "import", "--help"]])
def test_a_bare_command_imports_neither_numpy_nor_duckdb_nor_the_library(argv: list[str]) -> None:
    """Help is drawn from the commands' signatures alone, as plain text: the library is imported when a
    command runs, and Rich when it draws a table or a progress bar. (What Typer imports is Typer's: from
    0.29 it checks values with pydantic.)"""
    done, heavy = imported_by(argv, ("numpy", "jinja2", "pyarrow", "pandas", "duckdb", "rich"),
                              ("evalwh.report", "evalwh.export", "evalwh.output.rowfiles", "evalwh.loader",
                               "evalwh.logs", "evalwh.history", "evalwh.warehouse", "evalwh.queries"))
    assert done.returncode == 0, done.stderr
    assert heavy == []
    assert done.stdout.startswith("evalwh 0.1.0 (duckdb ") if argv == ["--version"] else "Usage: evalwh" in done.stdout
    if argv == ["load", "--help"]:
        assert "--score-thresholds" in done.stdout


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_runs_on_a_warehouse_imports_neither_numpy_nor_the_report(tmp_path: Path, fmt: str) -> None:
    """A command that reads the warehouse needs DuckDB and Rich's table (or DuckDB's CSV writer), nothing
    heavier: not numpy, pyarrow, Jinja or the report, and not what writes a schema (the steps and models
    evalwh.resources lists, the views built from them, the text functions a schema step fills columns with)."""
    subprocess.run([sys.executable, "-m", "evalwh", "--db", "wh.duckdb", "-q", "seed"], cwd=tmp_path, check=True,
                   capture_output=True)
    done, heavy = imported_by(["--db", "wh.duckdb", "runs", "-f", fmt], (*DATAFRAME_LIBRARIES, "jinja2",
                                                                       "graphlib"),
                              ("evalwh.report", "evalwh.export", "evalwh.loader", "evalwh.logs", "evalwh.resources",
                               "evalwh.warehouse.views", "evalwh.text",
                               *(("evalwh.output.rowfiles",) if fmt == "table" else ())), cwd=tmp_path)
    assert heavy == [], done.stderr
    assert "chapter3" in done.stdout


@pytest.mark.parametrize("args", [["materialize"], ["init"], ["report", "--format", "md", "-o", "r.md"],
                                  ["export", "exported"]], ids=["materialize", "init", "report", "export"])
def test_commands_that_compute_no_text_import_neither_numpy_nor_the_duckdb_package(tmp_path: Path,
                                                                                   args: list[str]) -> None:
    """Only a load (or a schema step) normalises text with the Python functions, whose registration
    imports numpy: a command that reads or stores what the views say needs DuckDB alone."""
    subprocess.run([sys.executable, "-m", "evalwh", "--db", "wh.duckdb", "-q", "seed"], cwd=tmp_path, check=True,
                   capture_output=True)
    done, heavy = imported_by(["--db", "wh.duckdb", "-q", *args], DATAFRAME_LIBRARIES, (),
                              cwd=tmp_path)
    assert heavy == [], done.stderr
    assert "error" not in done.stderr
    if args[0] in ("report", "export"):
        assert (tmp_path / args[-1]).exists()


def test_the_command_s_connections_are_the_duckdb_package_s() -> None:
    """A fresh interpreter started as the command starts (its entry module first, nothing else imported by
    hand): the connection evalwh opens has the package's whole API, as in the tests' own process."""
    code = ("import sys, evalwh.app\n"
            "from evalwh.warehouse.connection import new_connection\n"
            "con = new_connection()\n"
            "print(con.sql('SELECT 41 + 1').fetchall(), type(con).__module__.split('.')[0], '_duckdb' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split(maxsplit=1)[0] == "[(42,)]"
    assert done.stdout.split()[1] in ("duckdb", "_duckdb")
