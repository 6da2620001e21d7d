"""The team workflow of docs/team.md, run as written against a real Postgres: main's job loads and blesses
its run, then three pull-request jobs write into the same lake at once and gate against the blessed run.

Each job starts from an empty folder (a fresh runner) holding its eval data; the lake's address and
data path come from the workflow's secrets, played by the environment; every `run:` step runs in bash
with the installed `evalwh` on PATH, as on the runner. The lake's address carries a password, which
Postgres's trust authentication ignores, so the test can look for it in everything the jobs wrote.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.test_changes import BASE_ANSWERS, BASE_CLAIMS, NEXT_ANSWERS, NEXT_CLAIMS, run_folder
from tests.test_lake import POSTGRES, REQUIRED, _postgres_database

PAGE = REPO / "docs" / "team.md"
PASSWORD = "lake-s3cret-9f1"

pytestmark = pytest.mark.skipif(not POSTGRES and not REQUIRED, reason="no Postgres server (make test-lake)")


def workflow() -> dict[str, Any]:
    for found in re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        if found.startswith("# .github/workflows/eval-team.yml"):
            return dict(yaml.safe_load(found))
    raise AssertionError("docs/team.md has no eval-team.yml block")


def expand(text: str, context: dict[str, str]) -> str:
    """Replace each ``${{ name }}`` the test knows; any other is an error."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        assert name in context, f"the test cannot expand ${{{{ {name} }}}}"
        return context[name]
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def job_command(workflow: dict[str, Any], job: str, context: dict[str, str]) -> list[str]:
    """The job's `run:` steps, expanded, but the install (evalwh is installed here already)."""
    commands = []
    for step in workflow["jobs"][job]["steps"]:
        if "uses" in step:
            assert step["uses"].startswith(("actions/checkout@", "actions/setup-python@")), step
            continue
        command = expand(step["run"], context)
        if command.startswith("pip install"):
            assert "evalwh[lake]" in command  # the extra with the extension binaries
            continue
        commands.append(command)
    return commands


def start_job(commands: list[str], workdir: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    script = "\n".join(commands)
    return subprocess.Popen(["bash", "-e", "-c", script], cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_main_blesses_and_parallel_pull_requests_gate_against_it(tmp_path: Path) -> None:
    flow = workflow()
    lake = f"ducklake:postgres:{_postgres_database()} password={PASSWORD}"
    secrets = {"secrets.EVALWH_LAKE": lake, "secrets.EVALWH_DATA_PATH": str(tmp_path / "lake-data")}
    env_block = {k: expand(str(v), secrets) for k, v in flow["env"].items()}
    assert env_block["EVALWH_DB"] == lake
    base_env = {**os.environ, **env_block, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    def job(name: str, number: int, sha: str, answers: dict[str, tuple[str, str]],
            claims: list[tuple[str, str, str, str]]) -> tuple[subprocess.Popen[str], Path]:
        workdir = tmp_path / f"{name}-{number}"
        workdir.mkdir()
        run_folder(workdir, "eval-data", answers, claims)
        summary = workdir / "summary.md"
        summary.touch()
        context = {"github.sha": sha, "github.event.number": str(number)}
        commands = job_command(flow, name, context)
        return start_job(commands, workdir, {**base_env, "GITHUB_STEP_SUMMARY": str(summary)}), workdir

    main, main_dir = job("main", 0, "aaa111", BASE_ANSWERS, BASE_CLAIMS)
    out, err = main.communicate(timeout=600)
    assert main.returncode == 0, err
    assert "baseline of dataset hr-policy: main-aaa111" in err

    prs = [job("pull-request", 7, "bbb222", BASE_ANSWERS, BASE_CLAIMS),
           job("pull-request", 8, "ccc333", NEXT_ANSWERS, NEXT_CLAIMS),
           job("pull-request", 9, "ddd444", BASE_ANSWERS, BASE_CLAIMS)]
    results = [(p.communicate(timeout=600), p.returncode, d) for p, d in prs]
    (out7, err7), code7, dir7 = results[0]
    (out8, err8), code8, dir8 = results[1]
    (out9, err9), code9, dir9 = results[2]
    assert (code7, code9) == (0, 0), (err7, err9)
    # the pull request that broke answers fails its gate, against main's blessed run, naming what got worse
    assert code8 == 1, err8
    assert "baseline: main-aaa111 (the blessed baseline of dataset hr-policy)" in out8
    assert "FAIL  questions worse <= 0: 2 questions got worse" in out8
    assert "### What got worse since main-aaa111" in (dir8 / "summary.md").read_text(encoding="utf-8")
    # every run is in the lake, and the baseline is still main's
    listed = subprocess.run(["evalwh", "runs", "-f", "csv"], env=base_env, capture_output=True, text=True)
    assert sorted(line.split(",")[0] for line in listed.stdout.splitlines()[1:]) == \
        ["main-aaa111", "pr-7-bbb222", "pr-8-ccc333", "pr-9-ddd444"]
    shown = subprocess.run(["evalwh", "baseline", "show", "-f", "csv"], env=base_env, capture_output=True, text=True)
    assert shown.stdout.splitlines()[1].startswith("hr-policy,main-aaa111,")
    # the password is in no output, no summary and no file a job wrote
    seen = [out, err, out7, err7, out8, err8, out9, err9, listed.stdout, listed.stderr, shown.stdout, shown.stderr]
    for folder in (main_dir, dir7, dir8, dir9):
        seen += [p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file()]
    assert not [text for text in seen if PASSWORD in text]
