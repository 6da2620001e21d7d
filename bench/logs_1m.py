"""Benchmark: import a generated evalwh log of 1,000,000 requests; prints requests per second and peak memory,
then the time to import the same log with a blank line and a cut-off record in it (--skip-bad).

Run with `make bench-logs` (or `python bench/logs_1m.py [REQUESTS]`). It writes only to a
temporary folder. Peak memory is the process's maximum resident set size, which includes
DuckDB's buffers; compare figures between commits on the same machine.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from evalwh.logs import import_logs

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


def main() -> None:
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "requests.jsonl"
        start = time.perf_counter()
        generate(log, requests)
        print(f"generated {requests:,} requests ({log.stat().st_size / 2**20:,.0f} MiB) in {time.perf_counter() - start:.1f} s")
        os.sync()  # the generated file on disk first: the import is not timed against the system writing it out
        start = time.perf_counter()
        result = import_logs(Path(tmp) / "bench.duckdb", [log], "evalwh")
        elapsed = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"imported {result.requests:,} requests, {result.retrievals:,} retrievals, {result.citations:,} citations")
        print(f"import time        {elapsed:8.1f} s")
        print(f"requests/second    {result.requests / elapsed:8,.0f}")
        print(f"peak memory (RSS)  {peak:8,.0f} MiB")
        # the same log with a blank line and a cut-off record in the middle, imported with --skip-bad:
        # DuckDB's NDJSON reader refuses the file, and evalwh reads it in parts, still by line number
        damaged = Path(tmp) / "damaged.jsonl"
        write_damaged(log, damaged, requests // 2)
        start = time.perf_counter()
        result = import_logs(Path(tmp) / "damaged.duckdb", [damaged], "evalwh", skip_bad=True)
        elapsed = time.perf_counter() - start
        print(f"with a blank line and a cut-off record at line {requests // 2 + 2:,}: {elapsed:.1f} s "
              f"({result.requests:,} requests, {result.rejects} rejected)")


def write_damaged(log: Path, damaged: Path, after: int) -> None:
    """``log`` with a blank line and then a record cut short after its line ``after``."""
    with log.open("rb") as source, damaged.open("wb") as target:
        for number, line in enumerate(source, 1):
            target.write(line)
            if number == after:
                target.write(b"\n" + line[: len(line) // 2] + b"\n")


if __name__ == "__main__":
    main()
