"""Production logs: each format's sample file, idempotent imports, bad lines, and the join views."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.logs import import_logs
from tests.conftest import CHAPTER3, snapshot

LOGS = Path(__file__).resolve().parent / "logs"


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])


def rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture
def chapter_db(db: Path) -> Path:
    load_run(db, CHAPTER3, run="chapter3")
    return db


def test_evalwh_format_joined_with_the_chapter_run(chapter_db: Path) -> None:
    result = import_logs(chapter_db, [LOGS / "evalwh.jsonl"])
    assert (result.source, result.requests, result.retrievals, result.citations, result.rejects) == ("evalwh", 4, 4, 4, 0)
    health = {(r, p): (s, e, f) for r, p, s, e, f in rows(
        chapter_db, "SELECT request_id, position, status, chunk_exists, quote_found FROM log_citation_health")}
    assert health == {
        ("r1", 1): ("SUPPORTED", True, True),
        ("r2", 1): ("DANGLING", False, False),      # expenses-9 is not in the chapter's chunks
        ("r3", 1): ("UNSUPPORTED", True, False),    # network-1 says "changes on the first Monday", not weekly
        ("r3", 2): ("UNCHECKED", True, None),       # no quote logged
    }
    assert rows(chapter_db, "SELECT request_id, ts FROM log_requests WHERE request_id = 'r2'")[0][1].isoformat() == \
        "2026-11-30T09:02:00"  # 10:02 at +01:00, stored in UTC
    daily = rows(chapter_db, "SELECT CAST(day AS VARCHAR), requests, refusals, dangling_citations, unsupported_quotes "
                             "FROM log_daily ORDER BY day")
    assert daily == [("2026-11-30", 2, 0, 1, 0), ("2026-12-01", 2, 1, 0, 1)]
    coverage = {c: (r, k, cov) for c, r, k, cov in rows(
        chapter_db, "SELECT chunk_id, retrieved_count, cited_count, covered_by_case FROM log_chunk_coverage")}
    assert coverage["network-1"] == (1, 2, True)      # q3's case chunk
    assert coverage["handbook-2"] == (1, 0, False)    # no test case points at it
    assert coverage["expenses-9"] == (0, 1, False)


def test_refusal_replay_uses_the_runs_best_score(chapter_db: Path) -> None:
    import_logs(chapter_db, [LOGS / "evalwh.jsonl"])
    # by hand, non-stop words shared with the best chunk: r1 days/loan/laptop (handbook-1) = 3,
    # r2 need/receipt/30?/dollars: expenses-1 has need, receipt, dollars = 3, r3 guest/password/change:
    # network-1 has guest, password = 2 ("changes" is another word), r4 visitors = 1
    best = dict(rows(chapter_db, "SELECT request_id, best_score FROM log_request_scores"))
    assert best == {"r1": 3, "r2": 3, "r3": 2, "r4": 1}
    replay = rows(chapter_db, "SELECT threshold, requests, would_refuse, refused_in_production FROM log_refusal_replay "
                              "ORDER BY threshold")
    assert replay == [(1, 4, 0, 1), (2, 4, 1, 1), (3, 4, 2, 1), (4, 4, 4, 1), (5, 4, 4, 1)]


def test_import_twice_adds_nothing(chapter_db: Path) -> None:
    first = run(chapter_db, "logs", "import", str(LOGS / "evalwh.jsonl"))
    assert first.exit_code == 0
    assert "4 new requests, 0 already present" in first.stderr
    second = run(chapter_db, "logs", "import", str(LOGS / "evalwh.jsonl"), "--format", "evalwh")
    assert second.exit_code == 0
    assert "0 new requests, 4 already present" in second.stderr
    assert rows(chapter_db, "SELECT count(*), count(DISTINCT request_id) FROM log_requests") == [(4, 4)]
    assert rows(chapter_db, "SELECT count(*) FROM log_citations") == [(4,)]
    assert rows(chapter_db, "SELECT count(*) FROM log_batches") == [(2,)]


def test_malformed_line_names_file_and_line(chapter_db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = (LOGS / "evalwh.jsonl").read_text(encoding="utf-8").splitlines()
    lines.insert(3, '{"request_id": "r9", "ts": "yesterday"}')
    lines.insert(1, "{not json")
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = snapshot(chapter_db)
    result = run(chapter_db, "logs", "import", str(bad))
    assert result.exit_code == 2
    assert result.stderr == ("evalwh: error: bad.jsonl: line 2: not a JSON object "
                             "(use --skip-bad to set such lines aside)\n")
    assert snapshot(chapter_db) == before
    skipped = run(chapter_db, "logs", "import", str(bad), "--skip-bad")
    assert skipped.exit_code == 0
    assert "4 new requests" in skipped.stderr and "2 rejected" in skipped.stderr
    assert rows(chapter_db, "SELECT line, error FROM log_rejects ORDER BY line") == [
        (2, "not a JSON object"), (5, "timestamp is not ISO 8601")]


def test_unknown_format_and_missing_file(db: Path, tmp_path: Path) -> None:
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"hello": 1}\n', encoding="utf-8")
    result = run(db, "logs", "import", str(odd))
    assert result.exit_code == 2 and "cannot tell the log format" in result.stderr
    assert run(db, "logs", "import", str(odd), "--format", "nope").exit_code == 2
    assert not db.exists()
