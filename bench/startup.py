"""Start-up cost of a bare command: CPU seconds (user + system) and peak memory of `evalwh --version`,
`evalwh --help` and `evalwh runs` on a small warehouse, beside the interpreter alone and beside
importing everything the command line imported before its imports were made lazy (numpy, Jinja
and the report code). Each side runs in its own process, repeated; the minimum is printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPEATS = 7
EVALWH = str(Path(sys.executable).parent / "evalwh")
EAGER = "import evalwh.app.commands, numpy, jinja2, evalwh.report.render, evalwh.report.site, evalwh.export"


def cpu_and_peak(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(user + system seconds, peak MiB) of one run of ``argv``, from /usr/bin/time."""
    done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *argv], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{argv} failed:\n{done.stderr[-2000:]}")
    user, system, peak_kib = done.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system), int(peak_kib) / 1024


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        here = Path(scratch)
        subprocess.run([EVALWH, "--db", "wh.duckdb", "-q", "seed"], cwd=here, check=True)
        sides = {
            "python -c pass (the interpreter)": [sys.executable, "-c", "pass"],
            "the eager imports (numpy, Jinja, report)": [sys.executable, "-c", EAGER],
            "evalwh --version": [EVALWH, "--version"],
            "evalwh --help": [EVALWH, "--help"],
            "evalwh runs (small warehouse)": [EVALWH, "--db", "wh.duckdb", "runs", "-f", "csv"],
        }
        best: dict[str, tuple[float, float]] = {}
        for _ in range(REPEATS):  # interleaved, so a busy moment of the machine hits every side alike
            for name, argv in sides.items():
                cpu, peak = cpu_and_peak(argv, here)
                old = best.get(name)
                best[name] = (min(cpu, old[0]), min(peak, old[1])) if old else (cpu, peak)
    eager = best["the eager imports (numpy, Jinja, report)"][0]
    print(f"start-up, min of {REPEATS} runs; load average {os.getloadavg()[0]:.2f}; {shutil.which('evalwh') or EVALWH}")
    print(f"{'side':45} {'CPU s':>7} {'peak MiB':>9} {'CPU / eager':>12}")
    for name, (cpu, peak) in best.items():
        print(f"{name:45} {cpu:7.2f} {peak:9.1f} {cpu / eager if eager else float('nan'):12.2f}")


if __name__ == "__main__":
    main()
