"""Running one side of a side-by-side benchmark in its own process, measured by /usr/bin/time."""

from __future__ import annotations

import compileall
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple


class Measurement(NamedTuple):
    """One process's figures from /usr/bin/time -v, and the JSON object it printed last."""

    wall: float  # seconds
    peak_mib: float  # maximum resident set size
    output: dict[str, Any]
    cpu: float  # user + system seconds, over all threads


def _figure(pattern: str, stderr: str) -> re.Match[str]:
    found = re.search(pattern, stderr)
    if found is None:
        sys.exit(f"/usr/bin/time printed no figures:\n{stderr[-1000:]}")
    return found


def measured(argv: list[str], env: dict[str, str] | None = None) -> Measurement:
    """Run ``argv`` under /usr/bin/time -v (in environment ``env``, default this one's) and return its figures."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"{argv[:3]} failed:\n{proc.stderr[-3000:]}")
    wall = _figure(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = _figure(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    user = _figure(r"User time \(seconds\): ([\d.]+)", proc.stderr)
    system = _figure(r"System time \(seconds\): ([\d.]+)", proc.stderr)
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return Measurement(seconds, int(rss.group(1)) / 1024, json.loads(proc.stdout.strip().splitlines()[-1]),
                       float(user.group(1)) + float(system.group(1)))


def byte_compiled() -> str:
    """Byte-compile evalwh's modules where they are imported from, as ``pip install`` does for an installed
    package (an editable install, or Python run with PYTHONDONTWRITEBYTECODE, would otherwise compile every
    changed module again in each measured process); returns the line the benchmark prints about it."""
    import evalwh

    package = Path(evalwh.__file__).parent
    if not compileall.compile_dir(package, quiet=1):
        sys.exit(f"could not byte-compile {package}")
    return f"evalwh's modules byte-compiled, as an installation has them ({package})"
