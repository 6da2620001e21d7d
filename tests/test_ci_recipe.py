"""The CI workflow in docs/history.md, run as written: two consecutive jobs, the second's gate fails.

Each job starts from an empty folder (a fresh runner) holding the run's data and the documented
evalwh.toml; the Actions steps the workflow uses are played by their effect on the folder (the
cache restores the newest saved warehouse, the artifact step needs its path), and every `run:`
step runs in bash with the installed `evalwh` on PATH, as on the runner.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import REPO
from tests.test_changes import BASE_ANSWERS, BASE_CLAIMS, NEXT_ANSWERS, NEXT_CLAIMS, run_folder

PAGE = REPO / "docs" / "history.md"


def block(marker: str) -> str:
    """The fenced code block of docs/history.md whose first line is ``marker``."""
    for found in re.findall(r"```[a-z]*\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        if found.startswith(marker):
            return str(found)
    raise AssertionError(f"docs/history.md has no code block starting {marker!r}")


@dataclass
class Job:
    failed_step: str | None
    exit_code: int
    summary: str
    stderr: str


def expand(text: str, number: int) -> str:
    return text.replace("${{ github.run_number }}", str(number)).replace("${{ github.run_id }}", f"9{number}")


def run_job(steps: list[dict[str, Any]], workdir: Path, cache: Path, number: int) -> Job:
    summary = workdir / "summary.md"
    summary.touch()
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    errors = []
    for step in steps:
        uses = step.get("uses", "")
        if uses.startswith(("actions/checkout@", "actions/setup-python@")):
            continue  # the folder is the checkout; the tests run on a Python with evalwh installed
        if uses.startswith("actions/cache/restore@"):
            exact = cache / expand(step["with"]["key"], number)
            saved = sorted(cache.glob("*"), key=lambda p: p.stat().st_mtime_ns)
            if exact.exists():  # the key itself: a re-run of a job finds its first attempt's entry
                shutil.copy(exact / step["with"]["path"], workdir / step["with"]["path"])
            elif saved:  # restore-keys: the newest entry with the prefix
                shutil.copy(saved[-1] / step["with"]["path"], workdir / step["with"]["path"])
            continue
        if uses.startswith("actions/cache/save@"):
            entry = cache / expand(step["with"]["key"], number)
            if entry.exists():  # a key is written once: a re-run's save warns and keeps the first attempt's entry
                continue
            entry.mkdir()
            shutil.copy(workdir / step["with"]["path"], entry / step["with"]["path"])
            continue
        if uses.startswith("actions/upload-artifact@"):
            assert (workdir / step["with"]["path"]).is_dir(), step
            continue
        assert not uses, f"a step the test cannot play: {uses}"
        command = expand(step["run"], number)
        if command.startswith("pip install"):
            # evalwh is installed here already; the step must install it from a wheel or its repository,
            # never by a bare package name that no index serves
            assert command.split()[2:] != ["evalwh"] and ("git+" in command or ".whl" in command), command
            continue
        done = subprocess.run(["bash", "-e", "-c", command], cwd=workdir, env=env, capture_output=True,
                              text=True, timeout=300)
        errors.append(done.stderr)
        if done.returncode != 0:
            return Job(command, done.returncode, summary.read_text(encoding="utf-8"), "".join(errors))
    return Job(None, 0, summary.read_text(encoding="utf-8"), "".join(errors))


def test_the_documented_workflow_fails_the_second_job_on_its_regressions(tmp_path: Path) -> None:
    workflow = yaml.safe_load(block("# .github/workflows/eval.yml"))
    steps = workflow["jobs"]["eval"]["steps"]
    config = block("# evalwh.toml")
    cache = tmp_path / "cache"
    cache.mkdir()
    jobs = []
    for number, (answers, claims) in enumerate([(BASE_ANSWERS, BASE_CLAIMS), (NEXT_ANSWERS, NEXT_CLAIMS)], 1):
        workdir = tmp_path / f"job{number}"
        workdir.mkdir()
        data = run_folder(workdir, "eval-data", answers, claims)
        assert data.name == "eval-data"
        (workdir / "evalwh.toml").write_text(config, encoding="utf-8")
        jobs.append(run_job(steps, workdir, cache, number))
    # "Re-run failed jobs" on the second: the same run number and run id, a fresh runner
    workdir = tmp_path / "job2-again"
    workdir.mkdir()
    run_folder(workdir, "eval-data", NEXT_ANSWERS, NEXT_CLAIMS)
    (workdir / "evalwh.toml").write_text(config, encoding="utf-8")
    again = run_job(steps, workdir, cache, 2)
    first, second = jobs
    # the first job: no baseline, so the drop and regression gates hold with a note; its own
    # figures pass (2 of 3 claims supported >= 0.5, no dangling claim)
    assert (first.failed_step, first.exit_code) == (None, 0), first.stderr
    assert "No earlier run of its dataset to compare with" in first.summary
    assert "has no baseline" in first.stderr
    # the second restored the first's warehouse: of its five gates only supported_share (2 of 4 =
    # 0.5 >= 0.5) holds; the dangling claim c4, pair precision 3/3 -> 3/4 (a drop of 0.25 > 0.05)
    # and the two questions (q3, q4) and two claims (c1, c4) that got worse fail it
    assert (second.failed_step, second.exit_code) == ("evalwh check", 1), second.stderr
    assert "evalwh: check failed: 4 of 5 conditions" in second.stderr
    assert "**2 questions and 2 claims got worse.**" in second.summary  # the diff step
    assert "### What got worse since ci-1" in second.summary  # the report step
    assert "| q3: What is the guest wifi password? |" in second.summary
    assert "**❌ FAIL**: 4 of 5 gates failed (evalwh.toml)" in second.summary
    # the re-run restores the warehouse the first attempt saved, which holds ci-2 already: the load of
    # identical input is a no-op, and the gate runs and fails on the same regressions
    assert "run 'ci-2' already loaded from identical input; nothing written" in again.stderr
    assert (again.failed_step, again.exit_code) == ("evalwh check", 1), again.stderr
    assert "evalwh: check failed: 4 of 5 conditions" in again.stderr
