"""Running one side of a side-by-side benchmark in its own process, measured as the kernel accounts for it.

Each side runs under ``/usr/bin/time -v``, a small process, so its peak resident set is its own and not
that of the benchmark that started it (a child forked from a large Python process counts that process's
pages until it executes): the peak is what ``time`` prints. CPU is read to the microsecond from
``wait4()`` on ``time``, which holds the side's user + system seconds over all its threads (and
``time``'s own, about a millisecond), instead of ``time``'s hundredths.
"""

from __future__ import annotations

import compileall
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple


class Measurement(NamedTuple):
    """One process's figures, and the JSON object it printed last."""

    wall: float  # seconds
    peak_mib: float  # maximum resident set size
    output: dict[str, Any]
    cpu: float  # user + system seconds, over all threads


def measured(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Measurement:
    """Run ``argv`` (in environment ``env``, default this one's; in ``cwd``) and return its figures, with the
    JSON object on its last line of output (an empty one when it prints none)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(["/usr/bin/time", "-v", *argv], stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode != 0:
        sys.exit(f"{argv[:3]} failed:\n{stderr[-3000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if peak is None:
        sys.exit(f"/usr/bin/time printed no peak memory:\n{stderr[-1000:]}")
    lines = stdout.strip().splitlines()
    output = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return Measurement(wall, int(peak.group(1)) / 1024, output, usage.ru_utime + usage.ru_stime)


def byte_compiled() -> str:
    """Byte-compile evalwh's modules where they are imported from, as ``pip install`` does for an installed
    package (an editable install, or Python run with PYTHONDONTWRITEBYTECODE, would otherwise compile every
    changed module again in each measured process); returns the line the benchmark prints about it."""
    import evalwh

    package = Path(evalwh.__file__).parent
    if not compileall.compile_dir(package, quiet=1):
        sys.exit(f"could not byte-compile {package}")
    return f"evalwh's modules byte-compiled, as an installation has them ({package})"
