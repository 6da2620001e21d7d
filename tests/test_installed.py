"""One run of the installed `evalwh` command, as a subprocess, from another directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_cli import EVIDENCE


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
