"""A load killed with SIGKILL at any point leaves a warehouse that opens and holds the old run or the new one.

A 200,000-claim run is loaded in a subprocess that is killed at several fractions of a full load's
time (during validation, the writes and the commit), first as a new run and then as a ``--replace``
of that run by a version with one claim fewer. After each kill the file is opened with plain DuckDB:
the runs are exactly the old set or the new one, and every table holds exactly one version's rows.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.conftest import CHAPTER3

CLAIMS = 200_000
CHUNKS = 50_000
FRACTIONS = (0.1, 0.35, 0.6, 0.85, 0.97)


def generate(folder: Path, claims: int) -> None:
    """chunks, claims and citations of a synthetic run, written by DuckDB."""
    folder.mkdir(parents=True)
    con = duckdb.connect()
    words = "['loan', 'laptop', 'returned', 'within', 'days', 'receipt', 'portal', 'guest', 'network', 'printer']"
    con.execute(f"""COPY (SELECT 'k' || i AS chunk_id, 'd' || (i // 10) AS doc_id,
                           array_to_string(list_transform(range(40), lambda j: {words}[((i * 7 + j * 13) % 10) + 1]), ' ')
                           || ' ' || (i % 97) || ' days.' AS text
                    FROM range({CHUNKS}) AS t(i)) TO '{folder / "chunks.csv"}' (HEADER)""")
    con.execute(f"""COPY (SELECT 'c' || i AS claim_id, 'Laptops go back within ' || (i % 97) || ' days.' AS text,
                           {words}[(i % 10) + 1] || ' ' || {words}[((i + 3) % 10) + 1] AS quote
                    FROM range({claims}) AS t(i)) TO '{folder / "claims.csv"}' (HEADER)""")
    con.execute(f"""COPY (SELECT 'c' || i AS claim_id, 'k' || (i % {CHUNKS}) AS chunk_id
                    FROM range({claims}) AS t(i)) TO '{folder / "citations.csv"}' (HEADER)""")
    con.close()


def evalwh(db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evalwh", "--db", str(db), *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed_load(db: Path, *args: str) -> float:
    start = time.perf_counter()
    assert evalwh(db, *args).wait() == 0
    return time.perf_counter() - start


def contents(db: Path) -> dict[str, dict[str, int]]:
    """Rows per run in every run table, read by plain DuckDB (which replays a left-over WAL)."""
    con = duckdb.connect(str(db))
    try:
        tables = ("claims", "citations", "chunk_refs", "questions", "runs")
        out: dict[str, dict[str, int]] = {}
        for table in tables:
            for run_id, n in con.execute(f"SELECT run_id, count(*) FROM {table} GROUP BY run_id").fetchall():
                out.setdefault(run_id, {})[table] = n
        texts = con.execute("SELECT count(*) FROM chunk_texts").fetchone()[0]
        orphans = con.execute("SELECT count(*) FROM chunk_refs AS r ANTI JOIN chunk_texts AS t USING (text_hash)"
                              ).fetchone()[0]
        assert orphans == 0, "every chunk a run maps points at a stored text"
        out["*"] = {"chunk_texts": texts}
        return out
    finally:
        con.close()


def kill_at(seconds: float, db: Path, *args: str) -> None:
    process = evalwh(db, *args)
    time.sleep(seconds)
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_load_or_replace_leaves_the_old_or_the_new_run(tmp_path: Path) -> None:
    big, smaller = tmp_path / "big", tmp_path / "smaller"
    generate(big, CLAIMS)
    generate(smaller, CLAIMS - 1)
    base = tmp_path / "base.duckdb"
    assert evalwh(base, "load", str(CHAPTER3), "--run", "chapter3").wait() == 0
    old = contents(base)

    loaded = tmp_path / "loaded.duckdb"
    shutil.copy(base, loaded)
    full = timed_load(loaded, "load", str(big), "--run", "big")
    new = contents(loaded)
    assert new["big"]["claims"] == CLAIMS and new["big"]["citations"] == CLAIMS

    replaced = tmp_path / "replaced.duckdb"
    shutil.copy(loaded, replaced)
    full_replace = timed_load(replaced, "load", str(smaller), "--run", "big", "--replace")
    newer = contents(replaced)
    assert newer["big"]["claims"] == CLAIMS - 1

    outcomes = []
    for fraction in FRACTIONS:
        trial = tmp_path / f"new-{fraction}.duckdb"
        shutil.copy(base, trial)
        kill_at(full * fraction, trial, "load", str(big), "--run", "big")
        after = contents(trial)
        assert after in (old, new), f"killed at {fraction:.0%} of a load: {after}"
        outcomes.append(after == new)

        trial = tmp_path / f"replace-{fraction}.duckdb"
        shutil.copy(loaded, trial)
        kill_at(full_replace * fraction, trial, "load", str(smaller), "--run", "big", "--replace")
        after = contents(trial)
        assert after in (new, newer), f"killed at {fraction:.0%} of a --replace: {after}"
    assert not all(outcomes), "at least one kill landed before the commit"
