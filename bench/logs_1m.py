"""Benchmark: import a generated evalwh log of 1,000,000 requests; prints requests per second and peak memory,
then the time to import the same requests as 24 hourly files, and the same log with a blank line and a cut-off
record in it (--skip-bad).

Run with `make bench-logs` (or `python bench/logs_1m.py [REQUESTS] [--repeat N]`). Each import runs in its
own process measured by the kernel (wait4), into a new warehouse, N times (default 3); the figures are the minimum
wall time and the largest peak resident memory. It writes only to a temporary folder. Compare figures
between commits on the same machine, in one session: its speed drifts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from measure import Measurement, measured

# one import in a fresh process: what it added, the warehouse file's size, and the import's own time
# (the process's time less starting Python and importing evalwh and DuckDB)
IMPORT = r'''
import json, sys, time
from pathlib import Path
from evalwh.logs import import_logs
db = Path(sys.argv[1])
start = time.perf_counter()
result = import_logs(db, [Path(p) for p in sys.argv[3:]], "evalwh", skip_bad=sys.argv[2] == "skip-bad")
seconds = time.perf_counter() - start
print(json.dumps({"requests": result.requests, "retrievals": result.retrievals, "citations": result.citations,
                  "rejects": result.rejects, "file_mib": db.stat().st_size / 2**20, "seconds": seconds}))
'''

WORDS = "loan laptop days receipt portal claims guest network password visitors printer expenses".split()


def generate(path: Path, requests: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for n in range(requests):
            retrieved = [{"chunk_id": f"doc-{rng.randrange(500)}", "score": round(rng.random(), 3)} for _ in range(3)]
            cited = [{"chunk_id": retrieved[0]["chunk_id"], "quote": " ".join(rng.choices(WORDS, k=5))}]
            record = {
                "request_id": f"req-{n}",
                "ts": f"2026-11-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00Z",
                "session_id": f"s-{n // 5}",
                "question": " ".join(rng.choices(WORDS, k=8)) + "?",
                "answer": " ".join(rng.choices(WORDS, k=20)) + ".",
                "refused": rng.random() < 0.1,
                "retrieved": retrieved,
                "cited": cited,
            }
            f.write(json.dumps(record) + "\n")


def imports(logs: list[Path], folder: Path, repeat: int, skip_bad: bool = False) -> list[Measurement]:
    """``repeat`` imports of ``logs`` (one batch), each into a new warehouse in its own process."""
    runs = []
    for attempt in range(repeat):
        db = folder / f"import{attempt}.duckdb"
        runs.append(measured([sys.executable, "-c", IMPORT, str(db), "skip-bad" if skip_bad else "all",
                              *map(str, logs)]))
        db.unlink()
    return runs


def write_hours(log: Path, folder: Path, hours: int = 24) -> list[Path]:
    """``log``'s lines in ``hours`` files of consecutive lines, as a day of hourly logs."""
    lines = log.read_bytes().splitlines(keepends=True)
    size = -(-len(lines) // hours)
    folder.mkdir()
    paths = [folder / f"{hour:02d}.jsonl" for hour in range(hours)]
    for hour, path in enumerate(paths):
        path.write_bytes(b"".join(lines[hour * size:(hour + 1) * size]))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = folder / "requests.jsonl"
        start = time.perf_counter()
        generate(log, args.requests)
        print(f"generated {args.requests:,} requests ({log.stat().st_size / 2**20:,.0f} MiB) "
              f"in {time.perf_counter() - start:.1f} s")
        os.sync()  # the generated file on disk first: the import is not timed against the system writing it out
        clean = imports([log], folder, args.repeat)
        out = clean[0].output
        best = min(r.output["seconds"] for r in clean)
        print(f"imported {out['requests']:,} requests, {out['retrievals']:,} retrievals, {out['citations']:,} citations "
              f"into a {out['file_mib']:,.0f} MiB warehouse; best of {args.repeat}")
        each = ", ".join(f"{r.output['seconds']:.1f}" for r in clean)
        print(f"import time        {best:8.1f} s  (each: {each})")
        print(f"requests/second    {out['requests'] / best:8,.0f}")
        print(f"whole process      {min(r.wall for r in clean):8.1f} s  (starting Python, importing evalwh; "
              f"{min(r.cpu for r in clean):.1f} s CPU)")
        print(f"peak memory (RSS)  {max(r.peak_mib for r in clean):8,.0f} MiB")
        # the same requests as a day of hourly files, imported together
        hours = write_hours(log, folder / "hours")
        os.sync()
        day = imports(hours, folder, args.repeat)
        print(f"the same requests in {len(hours)} hourly files: {min(r.output['seconds'] for r in day):.1f} s, "
              f"{max(r.peak_mib for r in day):,.0f} MiB")
        for path in hours:
            path.unlink()
        # the same log with a blank line and a cut-off record in the middle, imported with --skip-bad:
        # DuckDB's NDJSON reader refuses the file, and evalwh reads it in parts, still by line number
        damaged = folder / "damaged.jsonl"
        write_damaged(log, damaged, args.requests // 2)
        os.sync()
        hurt = imports([damaged], folder, args.repeat, skip_bad=True)
        out = hurt[0].output
        print(f"with a blank line and a cut-off record at line {args.requests // 2 + 2:,}: "
              f"{min(r.output['seconds'] for r in hurt):.1f} s, {max(r.peak_mib for r in hurt):,.0f} MiB "
              f"({out['requests']:,} requests, {out['rejects']} rejected)")


def write_damaged(log: Path, damaged: Path, after: int) -> None:
    """``log`` with a blank line and then a record cut short after its line ``after``."""
    with log.open("rb") as source, damaged.open("wb") as target:
        for number, line in enumerate(source, 1):
            target.write(line)
            if number == after:
                target.write(b"\n" + line[: len(line) // 2] + b"\n")


if __name__ == "__main__":
    main()
