"""Running one side of a side-by-side benchmark in its own process, measured by /usr/bin/time."""

from __future__ import annotations

import json
import re
import subprocess
import sys


def measured(argv: list[str]) -> tuple[float, float, dict]:
    """Run ``argv`` under /usr/bin/time -v: (wall seconds, peak RSS MiB, the JSON object it printed last)."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{argv[:3]} failed:\n{proc.stderr[-3000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if wall is None or rss is None:
        sys.exit(f"/usr/bin/time printed no figures:\n{proc.stderr[-1000:]}")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return seconds, int(rss.group(1)) / 1024, json.loads(proc.stdout.strip().splitlines()[-1])
