"""Benchmark: load, materialise and report a generated run of 100,000 claims; prints the timings.

Run with `make bench` (or `python bench/report_100k.py [CLAIMS]`). It writes only
to a temporary folder. The figures are printed, not asserted: compare them
between commits on the same machine.
"""

from __future__ import annotations

import csv
import random
import sys
import tempfile
import time
from pathlib import Path

from evalwh.history import materialize
from evalwh.loader import load_run
from evalwh.report import build_report

WORDS = ("loan laptop returned days issue date staff manager extension register lost security team device "
         "guest wifi password monday month network printer visitors reception expense receipt portal claims "
         "dollars project code payment weekly").split()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + f" {rng.randint(1, 90)}."


def generate(folder: Path, claims: int, chunks: int, questions: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    chunk_text = {f"doc-{i // 10}/chunk {i}": sentence(rng, 30) for i in range(chunks)}
    ids = list(chunk_text)
    with (folder / "chunks.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["chunk_id", "text"])
        w.writerows(chunk_text.items())
    with (folder / "claims.csv").open("w", newline="", encoding="utf-8") as fc, \
            (folder / "citations.csv").open("w", newline="", encoding="utf-8") as fi:
        wc, wi = csv.writer(fc), csv.writer(fi)
        wc.writerow(["claim_id", "text", "quote"])
        wi.writerow(["claim_id", "chunk_id"])
        for n in range(claims):
            cited = rng.sample(ids, rng.randint(0, 2))
            if rng.random() < 0.05:
                cited.append("missing/chunk")
            source = chunk_text[cited[0]] if cited and cited[0] in chunk_text else sentence(rng, 8)
            tokens = source.split()
            start = rng.randrange(len(tokens))
            quote = " ".join(tokens[start:start + 6]) if rng.random() < 0.8 else sentence(rng, 4)
            wc.writerow([f"claim-{n}", quote + f" {rng.randint(1, 90)}", quote])
            wi.writerows([f"claim-{n}", c] for c in cited)
    with (folder / "questions.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["question_id", "question", "expected", "gold"])
        for n in range(questions):
            answer = rng.random() < 0.8
            gold = " ".join(chunk_text[rng.choice(ids)].split()[:5]) if answer else ""
            w.writerow([f"q{n}", sentence(rng, 8), "answer" if answer else "refuse", gold])


def timed(label: str, fn) -> object:
    start = time.perf_counter()
    value = fn()
    print(f"{label:<28} {time.perf_counter() - start:8.2f} s")
    return value


def main() -> None:
    claims = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "big"
        folder.mkdir()
        db = root / "bench.duckdb"
        print(f"run of {claims:,} claims, 2,000 chunks, 200 questions")
        timed("generate files", lambda: generate(folder, claims, 2_000, 200))
        timed("load (validate + write)", lambda: load_run(db, folder, run="big"))
        timed("report html (live views)", lambda: build_report(db, "big", "html", root / "live.html"))
        timed("materialize", lambda: materialize(db))
        timed("report html (history)", lambda: build_report(db, "big", "html", root / "report.html"))
        timed("report md (history)", lambda: build_report(db, "big", "md", root / "report.md"))
        size = (root / "report.html").stat().st_size
        rows = sum(1 for _ in (root / "report.claims.csv").open(encoding="utf-8")) - 1
        print(f"report.html {size / 1024:,.0f} KiB; report.claims.csv {rows:,} rows")


if __name__ == "__main__":
    main()
