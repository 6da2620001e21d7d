"""Start-up cost of a bare command: CPU seconds (user + system) and peak memory of `evalwh --version`,
`evalwh --help` and `evalwh runs` on a small warehouse, beside the floors they stand on (the
interpreter alone; importing Typer; Typer and its Rich help; Typer and the duckdb package; Typer,
the duckdb package and reading the small warehouse's runs table; the same through DuckDB's compiled engine
alone (its private module, which evalwh does not import: the lowest a DuckDB read can cost); and that with Rich's table
drawn, the floor of `evalwh runs`) and beside importing
everything the command line imported before its imports were made lazy (DuckDB, numpy, Jinja, the
loader and the report code). Each side runs in its own process, interleaved with the others and
repeated; the minimum is printed. evalwh's modules are byte-compiled first, as an installation has them. CPU and peak RSS are the child's own, from wait4().
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import byte_compiled, measured

REPEATS = 9
EVALWH = str(Path(sys.executable).parent / "evalwh")
EAGER = ("import evalwh.app.commands, duckdb, numpy, jinja2, evalwh.loader, evalwh.logs, evalwh.history, "
         "evalwh.report.render, evalwh.report.site, evalwh.export, evalwh.output.rowfiles")


# Typer, the duckdb package, the warehouse opened read-only and its runs read
PACKAGE_READ = ("import typer, duckdb\ncon = duckdb.connect('wh.duckdb', read_only=True)\n"
                "con.execute('SELECT * FROM runs').fetchall()")
# the lowest a DuckDB read can cost: the same through DuckDB's engine, without the package's Python layer
FLOOR = ("import typer, _duckdb\ncon = _duckdb.connect('wh.duckdb', read_only=True)\n"
         "rows = con.execute('SELECT * FROM runs').fetchall()")
# and `evalwh runs`: those rows drawn as a Rich table
TABLE_FLOOR = FLOOR + ("\nimport sys\nfrom rich.console import Console\nfrom rich.table import Table\n"
                       "table = Table(*(d[0] for d in con.description))\n"
                       "[table.add_row(*map(str, row)) for row in rows]\n"
                       "Console(file=sys.stdout, width=1000, emoji=False).print(table)")


def main() -> None:
    print(byte_compiled())
    with tempfile.TemporaryDirectory() as scratch:
        here = Path(scratch)
        subprocess.run([EVALWH, "--db", "wh.duckdb", "-q", "seed"], cwd=here, check=True)
        python = sys.executable
        sides = {
            "python -c pass (the interpreter)": [python, "-c", "pass"],
            "import typer": [python, "-c", "import typer"],
            "import typer + its Rich help": [python, "-c", "import typer, typer.rich_utils"],
            "import typer + duckdb": [python, "-c", "import typer, duckdb"],
            "typer + duckdb reading runs": [python, "-c", PACKAGE_READ],
            "typer + DuckDB's engine reading runs (floor)": [python, "-c", FLOOR],
            "... and a Rich table of them (floor)": [python, "-c", TABLE_FLOOR],
            "the eager imports (before)": [python, "-c", EAGER],
            "evalwh --version": [EVALWH, "--version"],
            "evalwh --help": [EVALWH, "--help"],
            "evalwh load --help": [EVALWH, "load", "--help"],
            "evalwh runs (small warehouse, table)": [EVALWH, "--db", "wh.duckdb", "runs"],
            "evalwh runs (small warehouse, csv)": [EVALWH, "--db", "wh.duckdb", "runs", "-f", "csv"],
        }
        best: dict[str, tuple[float, float]] = {}
        for _ in range(REPEATS):  # interleaved, so a busy moment of the machine hits every side alike
            for name, argv in sides.items():
                got = measured(argv, cwd=here)
                cpu, peak = got.cpu, got.peak_mib
                old = best.get(name)
                best[name] = (min(cpu, old[0]), min(peak, old[1])) if old else (cpu, peak)
    eager = best["the eager imports (before)"][0]
    print(f"start-up, min of {REPEATS} runs; load average {os.getloadavg()[0]:.2f}; {shutil.which('evalwh') or EVALWH}")
    print(f"{'side':46} {'CPU s':>7} {'peak MiB':>9} {'CPU / eager':>12}")
    for name, (cpu, peak) in best.items():
        print(f"{name:46} {cpu:7.3f} {peak:9.1f} {cpu / eager if eager else float('nan'):12.2f}")


if __name__ == "__main__":
    main()
