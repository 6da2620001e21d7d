"""Production logs: each format's sample file, idempotent imports, bad lines, and the join views."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import patch

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.logs import import_logs
from evalwh.logs import read as logs
from tests.conftest import CHAPTER3, DUCKDB_1, rows, snapshot, warehouse_at_version

LOGS = Path(__file__).resolve().parent / "logs"


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])



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
    second = run(chapter_db, "logs", "import", str(LOGS / "evalwh.jsonl"), "--log-format", "evalwh")
    assert second.exit_code == 0
    assert second.stderr == "evalwh: nothing new (evalwh): 4 requests already present; no batch recorded\n"
    assert rows(chapter_db, "SELECT count(*), count(DISTINCT request_id) FROM log_requests") == [(4, 4)]
    assert rows(chapter_db, "SELECT count(*) FROM log_citations") == [(4,)]
    assert rows(chapter_db, "SELECT count(*) FROM log_batches") == [(1,)]  # a re-import records no empty batch


def lists_by_request(path: Path, key: str) -> dict[str, int]:
    """How many elements each record's list ``key`` holds, read from the file with Python's json."""
    records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {r["request_id"]: len(r.get(key) or []) for r in records}


def test_a_log_overlapping_an_earlier_import_adds_each_new_requests_rows_once(chapter_db: Path, tmp_path: Path) -> None:
    lines = [x for x in (LOGS / "evalwh.jsonl").read_text(encoding="utf-8").splitlines(keepends=True) if x.strip()]
    first, whole = tmp_path / "first.jsonl", tmp_path / "whole.jsonl"
    first.write_text("".join(lines[:2]), encoding="utf-8")
    whole.write_text("".join(lines), encoding="utf-8")
    import_logs(chapter_db, [first])
    result = import_logs(chapter_db, [whole])
    assert (result.requests, result.skipped) == (len(lines) - 2, 2)
    for table, key in (("log_retrievals", "retrieved"), ("log_citations", "cited")):
        expected = {r: n for r, n in lists_by_request(whole, key).items() if n}
        got = dict(rows(chapter_db, f"SELECT request_id, count(*) FROM {table} GROUP BY request_id"))
        assert got == expected, table
    # the rows of the second import are those of the requests new to it
    batch = result.log_batch_id
    new = {r for r, in rows(chapter_db, f"SELECT request_id FROM log_requests WHERE log_batch_id = '{batch}'")}
    assert new == set(list(lists_by_request(whole, "retrieved"))[2:])
    assert {r for r, in rows(chapter_db, f"SELECT request_id FROM log_retrievals WHERE log_batch_id = '{batch}'")} <= new


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
                             "(use --skip-bad to set such records aside)\n")
    assert snapshot(chapter_db) == before
    skipped = run(chapter_db, "logs", "import", str(bad), "--skip-bad")
    assert skipped.exit_code == 0
    assert "4 new requests" in skipped.stderr and "2 rejected" in skipped.stderr
    assert rows(chapter_db, "SELECT line, error FROM log_rejects ORDER BY line") == [
        (2, "not a JSON object"), (5, "timestamp is not ISO 8601")]


def test_a_request_with_several_problems_is_rejected_once_for_the_first(chapter_db: Path, tmp_path: Path) -> None:
    # the request checks in order: the id, the time, the refused flag, then a repeated id
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"request_id": "", "ts": "epoch", "refused": "maybe"}\n'
                   '{"request_id": "r1", "ts": "2026-11-30T09:00:00Z"}\n'
                   '{"request_id": "r1", "ts": "noon", "refused": "maybe"}\n'
                   '{"request_id": "r1", "refused": "maybe"}\n', encoding="utf-8")
    result = run(chapter_db, "logs", "import", str(bad))
    assert (result.exit_code, result.stderr) == (
        2, "evalwh: error: bad.jsonl: line 1: missing request id (use --skip-bad to set such records aside)\n")
    skipped = run(chapter_db, "logs", "import", str(bad), "--skip-bad")
    assert skipped.exit_code == 0
    assert "1 new requests" in skipped.stderr and "3 rejected" in skipped.stderr
    assert rows(chapter_db, "SELECT line, error FROM log_rejects ORDER BY line") == [
        (1, "missing request id"), (3, "timestamp is not ISO 8601"), (4, "refused is not a boolean")]


def test_unknown_format_and_missing_file(db: Path, tmp_path: Path) -> None:
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"hello": 1}\n', encoding="utf-8")
    result = run(db, "logs", "import", str(odd))
    assert result.exit_code == 2 and "cannot tell the log format" in result.stderr
    assert run(db, "logs", "import", str(odd), "--log-format", "nope").exit_code == 2
    assert not db.exists()


def citations(db: Path, source: str) -> list[tuple]:
    return rows(db, f"SELECT request_id, position, chunk_id, resolution FROM log_citations WHERE source = '{source}' "
                    "ORDER BY request_id, position")


def retrievals(db: Path, source: str) -> list[tuple]:
    return rows(db, f"SELECT request_id, rank, chunk_id, score FROM log_retrievals WHERE source = '{source}' "
                    "ORDER BY request_id, rank")


def test_openinference_flat_and_nested_attributes(chapter_db: Path) -> None:
    result = import_logs(chapter_db, [LOGS / "openinference.jsonl"])
    assert (result.source, result.requests) == ("openinference", 2)
    assert rows(chapter_db, "SELECT request_id, session_id, question, model FROM log_requests ORDER BY request_id") == [
        ("t-1", "sess-9", "How long can I keep a loan laptop?", "gpt-x"),
        ("t-2", None, "What is the guest wifi password?", None),
    ]
    assert retrievals(chapter_db, "openinference") == [
        ("t-1", 1, "handbook-1", 0.91), ("t-1", 2, "handbook-2", 0.55),   # flat retrieval.documents.N.document.*
        ("t-2", 1, "network-2", 0.4), ("t-2", 2, "network-1", 0.8),       # nested list
    ]
    assert citations(chapter_db, "openinference") == [
        ("t-1", 1, "handbook-1", "resolved"), ("t-1", 2, None, "out_of_range"),  # [3] with two documents
        ("t-2", 1, "network-1", "resolved"),
    ]


def test_openinference_parquet_export(chapter_db: Path, tmp_path: Path) -> None:
    parquet = tmp_path / "spans.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM read_json('{LOGS / 'openinference.jsonl'}', format='newline_delimited', "
                f"union_by_name=true) WHERE span_kind <> 'LLM') TO '{parquet}' (FORMAT parquet)")
    con.close()
    result = import_logs(chapter_db, [parquet], "openinference")
    assert result.requests == 2
    assert [r[:3] for r in retrievals(chapter_db, "openinference")] == [
        ("t-1", 1, "handbook-1"), ("t-1", 2, "handbook-2"), ("t-2", 1, "network-2"), ("t-2", 2, "network-1")]


def test_otlp_hex_and_base64_ids_and_both_document_encodings(chapter_db: Path) -> None:
    result = import_logs(chapter_db, [LOGS / "otlp.json"])
    assert (result.source, result.requests) == ("otlp", 2)
    requests = rows(chapter_db, "SELECT request_id, session_id, question, model, CAST(ts AS VARCHAR) FROM log_requests "
                                "ORDER BY ts")
    assert requests == [
        ("5b8efff798038103d269b633813fc60c", "web-42", "How old can a receipt be?", None, "2025-12-01 10:00:00"),
        # base64 W47/95gDgQPSabYzgT/GDQ== is hex 5b8efff798038103d269b633813fc60d
        ("5b8efff798038103d269b633813fc60d", None, "Which claims need a project code?", "claude-x", "2025-12-01 11:00:00"),
    ]
    assert retrievals(chapter_db, "otlp") == [
        ("5b8efff798038103d269b633813fc60c", 1, "expenses-2", 0.93),  # JSON-string attribute
        ("5b8efff798038103d269b633813fc60c", 2, "expenses-1", 0.71),
        ("5b8efff798038103d269b633813fc60d", 1, "expenses-3", 0.88),  # structured arrayValue of kvlists
    ]
    assert citations(chapter_db, "otlp")[-1] == ("5b8efff798038103d269b633813fc60d", 2, None, "out_of_range")


@pytest.mark.parametrize("documents", ["", "not json", "[{"])
def test_otlp_documents_string_that_is_no_json_reads_as_absent(chapter_db: Path, tmp_path: Path,
                                                               documents: str) -> None:
    """A gen_ai.retrieval.documents string that is not JSON at all (even empty) is a value of another
    type: read as absent, as the format reads such values, not a failure of the import."""
    record = json.loads((LOGS / "otlp.json").read_text(encoding="utf-8"))
    spans = record["resourceSpans"][0]["scopeSpans"][0]["spans"]
    attribute = next(a for span in spans for a in span["attributes"] if a["key"] == "gen_ai.retrieval.documents"
                     and "stringValue" in a["value"])
    attribute["value"]["stringValue"] = documents
    log = tmp_path / "t.json"
    log.write_text(json.dumps(record), encoding="utf-8")
    result = run(chapter_db, "logs", "import", str(log), "--log-format", "otlp")
    assert result.exit_code == 0, result.stderr
    # the sample's JSON-string documents (expenses-2, expenses-1) are gone; its structured ones stay
    assert retrievals(chapter_db, "otlp") == [("5b8efff798038103d269b633813fc60d", 1, "expenses-3", 0.88)]


def test_otlp_a_key_written_twice_counts_where_first_written(chapter_db: Path, tmp_path: Path) -> None:
    import json

    def attribute(key: str, value: dict) -> dict:
        return {"key": key, "value": value}

    documents = {"arrayValue": {"values": [{"kvlistValue": {"values": [
        attribute("id", {"stringValue": "expenses-2"}), attribute("id", {"stringValue": "expenses-1"})]}}]}}
    spans = [{"traceId": "ab" * 16, "spanId": "cd" * 8, "startTimeUnixNano": "1764583200000000000",
              "attributes": [attribute("input.value", {"stringValue": "Which?"}),
                             attribute("output.value", {"stringValue": "This [1]."}),
                             attribute("gen_ai.response.model", {"stringValue": "first"})]},
             {"traceId": "ab" * 16, "spanId": "ce" * 8, "parentSpanId": "cd" * 8,
              "startTimeUnixNano": "1764583200100000000",
              "attributes": [attribute("gen_ai.request.model", {"stringValue": "second"}),
                             attribute("gen_ai.retrieval.documents", documents)]}]
    log = tmp_path / "t.json"
    log.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}), encoding="utf-8")
    import_logs(chapter_db, [log], "otlp")
    assert rows(chapter_db, "SELECT model FROM log_requests") == [("first",)]
    assert retrievals(chapter_db, "otlp") == [("ab" * 16, 1, "expenses-2", None)]


def test_a_key_written_twice_in_a_record_counts_where_first_written(chapter_db: Path, tmp_path: Path) -> None:
    """evalwh JSONL and ragas records: the first value of a repeated key, everywhere it is read."""
    evalwh_log = tmp_path / "e.jsonl"
    evalwh_log.write_text('{"request_id": "z1", "ts": "2026-11-30T09:15:00Z", "question": "Laptop loan?", '
                          '"question": "Guest wifi?", "answer": "14 days.", "refused": false, "refused": true, '
                          '"retrieved": [{"chunk_id": "handbook-1", "chunk_id": "network-1", "score": 0.5}], '
                          '"cited": []}\n', encoding="utf-8")
    import_logs(chapter_db, [evalwh_log], "evalwh")
    assert rows(chapter_db, "SELECT request_id, question, question_words, refused FROM log_requests") == [
        ("z1", "Laptop loan?", ["laptop", "loan"], False)]
    assert retrievals(chapter_db, "evalwh") == [("z1", 1, "handbook-1", 0.5)]
    ragas_log = tmp_path / "r.jsonl"
    ragas_log.write_text('{"id": "s1", "user_input": "Laptop loan?", "user_input": "Guest wifi?", '
                         '"retrieved_contexts": ["c"], "response": "r", "reference": "x"}\n', encoding="utf-8")
    import_logs(chapter_db, [ragas_log], "ragas")
    assert rows(chapter_db, "SELECT question FROM log_requests WHERE source = 'ragas'") == [("Laptop loan?",)]


def test_openinference_a_flat_attribute_written_twice_counts_where_first_written(
        chapter_db: Path, tmp_path: Path) -> None:
    """A span's attributes object with a key written twice keeps every attribute, the repeated one first-valued."""
    log = tmp_path / "oi.jsonl"
    log.write_text('{"name": "rag", "span_kind": "CHAIN", "parent_id": null, '
                   '"start_time": "2026-12-01T09:00:00+00:00", "context": {"trace_id": "t-9", "span_id": "s-9"}, '
                   '"attributes": {"openinference.span.kind": "CHAIN", "input.value": "Laptop loan?", '
                   '"input.value": "Guest wifi?", "output.value": "14 days [1].", '
                   '"retrieval.documents.0.document.id": "handbook-1", "session.id": "s"}}\n', encoding="utf-8")
    import_logs(chapter_db, [log], "openinference")
    assert rows(chapter_db, "SELECT request_id, question, answer, session_id FROM log_requests") == [
        ("t-9", "Laptop loan?", "14 days [1].", "s")]
    assert citations(chapter_db, "openinference") == [("t-9", 1, "handbook-1", "resolved")]


def test_a_gzip_log_with_blank_and_bad_lines_keeps_its_line_numbers(chapter_db: Path, tmp_path: Path) -> None:
    """A line that is not JSON sends a log to the line-exact reader, which must read the gzip file's text too."""
    import gzip

    log = tmp_path / "day.jsonl.gz"
    good = '{"request_id": "g1", "ts": "2026-11-30T09:15:00Z", "question": "Laptop loan?", "answer": "14 days.", ' \
           '"refused": false, "retrieved": [{"chunk_id": "handbook-1", "score": 0.5}], "cited": []}'
    log.write_bytes(gzip.compress(f"{good}\n\nnot json\n".encode("utf-8")))
    refused = run(chapter_db, "logs", "import", str(log))
    assert (refused.exit_code, refused.stderr) == (
        2, "evalwh: error: day.jsonl.gz: line 3: not a JSON object (use --skip-bad to set such records aside)\n")
    result = import_logs(chapter_db, [log], "evalwh", skip_bad=True)
    assert (result.requests, result.retrievals, result.rejects) == (1, 1, 1)
    assert rows(chapter_db, "SELECT file, line, error FROM log_rejects") == [("day.jsonl.gz", 3, "not a JSON object")]
    assert rows(chapter_db, "SELECT request_id, question FROM log_requests") == [("g1", "Laptop loan?")]


def test_anthropic_citation_locations(chapter_db: Path) -> None:
    result = import_logs(chapter_db, [LOGS / "anthropic.jsonl"])
    assert (result.source, result.requests, result.citations) == ("anthropic", 2, 4)
    assert rows(chapter_db, "SELECT request_id, question, finish_reason FROM log_requests ORDER BY request_id") == [
        ("msg_02", "When does the guest password change?", "end_turn"),
        ("req_01", "Do I need a receipt for a 30 dollar claim?", "end_turn"),
    ]
    assert citations(chapter_db, "anthropic") == [
        ("msg_02", 1, "network-1", "resolved"),     # search_result_location
        ("req_01", 1, "expenses-1", "resolved"),    # char_location, document_index 0
        ("req_01", 2, "expenses-2", "resolved"),    # content_block_location, document_index 1
        ("req_01", 3, None, "out_of_range"),        # document_index 5 of 2 documents
    ]
    health = dict(((r, p), s) for r, p, s in rows(
        chapter_db, "SELECT request_id, position, status FROM log_citation_health"))
    assert health[("req_01", 2)] == "UNSUPPORTED"   # cited_text says 30 days; expenses-2 says 60
    assert health[("msg_02", 1)] == "SUPPORTED"


def test_anthropic_question_is_the_last_user_text_string_or_blocks(chapter_db: Path, tmp_path: Path) -> None:
    import json

    log = tmp_path / "a.jsonl"
    messages = [{"role": "user", "content": "A plain string question?"},
                {"role": "assistant", "content": "An answer."},
                {"role": "user", "content": [{"type": "text", "text": "Two"}, {"type": "image"},
                                             {"type": "text", "text": "blocks?"}]},
                {"role": "user", "content": [{"type": "document", "title": "d", "source": {"data": "no text"}}]}]
    records = [{"request": {"messages": messages}, "response": {"id": "m1", "content": []}},
               {"request": {"messages": messages[:2]}, "response": {"id": "m2", "content": [
                   {"type": "text", "text": "Joined"}, {"type": "text", "text": None}, {"type": "text", "text": " up."}]}}]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_logs(chapter_db, [log], "anthropic")
    # the last user message with text; its text blocks joined by a space; the answer's text blocks joined
    assert rows(chapter_db, "SELECT request_id, question, answer FROM log_requests ORDER BY 1") == [
        ("m1", "Two blocks?", None), ("m2", "A plain string question?", "Joined up.")]


def test_ragas_new_and_old_columns(chapter_db: Path) -> None:
    result = import_logs(chapter_db, [LOGS / "ragas.jsonl"])
    assert (result.source, result.requests, result.retrievals, result.citations) == ("ragas", 2, 3, 0)
    assert sorted(r[0] for r in rows(chapter_db, "SELECT question FROM log_requests")) == [
        "Do I need a receipt for 30 dollars?", "How long can I keep a loan laptop?"]
    assert sorted((r[1], r[2] or "") for r in retrievals(chapter_db, "ragas")) == [(1, ""), (1, "handbook-1"), (2, "handbook-2")]
    assert import_logs(chapter_db, [LOGS / "ragas.jsonl"]).requests == 0  # a hash of the sample is its id


def test_logs_cli_batches_and_metrics(chapter_db: Path) -> None:
    run(chapter_db, "logs", "import", str(LOGS / "evalwh.jsonl"))
    batches = run(chapter_db, "logs", "batches", "-f", "csv")
    assert batches.exit_code == 0 and "evalwh" in batches.stdout
    gate = run(chapter_db, "check", "--max", "log_dangling_rate_last_day=0", "--max", "log_unsupported_rate_last_day=0.4")
    assert gate.exit_code == 1
    assert "ok    log_dangling_rate_last_day <= 0: is 0" in gate.stdout
    # the last day's citations: r3's UNSUPPORTED one and its UNCHECKED one (no quote); of the one whose
    # quote could be checked, one is unsupported
    assert "FAIL  log_unsupported_rate_last_day <= 0.400: is 1\n" in gate.stdout


def test_report_has_a_production_section(chapter_db: Path) -> None:
    from evalwh.report import build_report

    assert "### Production" not in build_report(chapter_db, "latest", "md", None)
    import_logs(chapter_db, [LOGS / "evalwh.jsonl"])
    md = build_report(chapter_db, "latest", "md", None)
    assert "SUPPORTED 1, UNSUPPORTED 1, DANGLING 1, UNCHECKED 1" in md
    assert "| evalwh | r2 | 1 | expenses-9 | DANGLING | resolved | do not need a receipt |" in md
    assert "| 2 | 4 | 1 | 1 |" in md                      # threshold 2 would refuse r4 only
    assert "| log\\_dangling\\_rate | 0.250 |" in md
    html = build_report(chapter_db, "latest", "html", None)
    assert "<h2>Production</h2>" in html and "<h3>Chunks production uses that no test case covers</h3>" in html


def test_openinference_provider_citations_win_over_markers(chapter_db: Path) -> None:
    import_logs(chapter_db, [LOGS / "openinference_provider.jsonl"])
    # the answer's marker [1] would name expenses-1; the provider's document_index 1 names expenses-2
    assert rows(chapter_db, "SELECT position, chunk_id, quote, resolution FROM log_citations") == [
        (1, "expenses-2", "Receipts older than 60 days will be rejected by the portal.", "resolved")]
    assert rows(chapter_db, "SELECT status FROM log_citation_health") == [("SUPPORTED",)]


def test_logs_show_filters_to_the_chosen_run(chapter_db: Path, tmp_path: Path) -> None:
    import csv
    import io

    import_logs(chapter_db, [LOGS / "evalwh.jsonl"])
    folder = tmp_path / "more"
    shutil.copytree(CHAPTER3, folder)
    (folder / "chunks.csv").write_text((folder / "chunks.csv").read_text(encoding="utf-8") +
                                       "expenses-9,expenses,Claims below 50 dollars do not need a receipt.\n",
                                       encoding="utf-8")
    load_run(chapter_db, folder, run="with-expenses-9")
    latest = list(csv.DictReader(io.StringIO(run(chapter_db, "logs", "show", "health", "-f", "csv").stdout)))
    first = list(csv.DictReader(io.StringIO(
        run(chapter_db, "logs", "show", "health", "--run", "chapter3", "-f", "csv").stdout)))
    status = {(r["request_id"], r["position"]): r["status"] for r in latest}
    assert status[("r2", "1")] == "SUPPORTED"                       # the new chunk store has expenses-9
    assert {(r["request_id"], r["status"]) for r in first} >= {("r2", "DANGLING")}
    daily = run(chapter_db, "logs", "show", "daily", "-f", "json")
    assert daily.exit_code == 0
    assert {r["dangling_citations"] for r in json.loads(daily.stdout)} == {0}


def test_skip_bad_sets_aside_wrong_types_and_unreadable_records(chapter_db: Path, tmp_path: Path) -> None:
    import json

    good = [json.loads(x) for x in (LOGS / "evalwh.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    bad = tmp_path / "typed.jsonl"
    # the last is well typed, with retrievals and a citation, but its time is no time
    records = [good[0], {**good[1], "retrieved": "handbook-1"}, good[2], {**good[3], "request_id": 4},
               {**good[0], "request_id": "late", "ts": "noon"}]
    bad.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    skipped = run(chapter_db, "logs", "import", str(bad), "--skip-bad")
    assert skipped.exit_code == 0, skipped.stderr
    assert rows(chapter_db, "SELECT line, error FROM log_rejects ORDER BY line") == [
        (2, "retrieved must be a list of objects"), (4, "request_id must be a string"), (5, "timestamp is not ISO 8601")]
    assert rows(chapter_db, "SELECT request_id FROM log_requests ORDER BY request_id") == \
        sorted([(good[0]["request_id"],), (good[2]["request_id"],)])
    # a set-aside record's retrievals and citations are not written either
    kept = {good[0]["request_id"], good[2]["request_id"]}
    for table, key in (("log_retrievals", "retrieved"), ("log_citations", "cited")):
        expected = {r["request_id"]: len(r[key]) for r in good if r["request_id"] in kept and r.get(key)}
        assert dict(rows(chapter_db, f"SELECT request_id, count(*) FROM {table} GROUP BY request_id")) == expected


def test_an_otlp_file_the_format_cannot_read_is_found_and_set_aside(chapter_db: Path, tmp_path: Path) -> None:
    import json

    broken = tmp_path / "broken.json"
    span = {"traceId": "5b8efff798038103d269b633813fc6ff", "startTimeUnixNano": "soon",
            "attributes": [{"key": "input.value", "value": {"stringValue": "When?"}}]}
    broken.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}), encoding="utf-8")
    result = run(chapter_db, "logs", "import", str(LOGS / "otlp.json"), str(broken), "--log-format", "otlp")
    assert result.exit_code == 2
    assert result.stderr.startswith("evalwh: error: broken.json: line 1: does not fit the otlp format (")
    skipped = run(chapter_db, "logs", "import", str(LOGS / "otlp.json"), str(broken), "--log-format", "otlp", "--skip-bad")
    assert skipped.exit_code == 0, skipped.stderr
    alone = tmp_path / "alone.duckdb"
    load_run(alone, CHAPTER3)
    import_logs(alone, [LOGS / "otlp.json"], "otlp")
    # the good file's requests are all there, the same as importing it alone
    assert rows(chapter_db, "SELECT request_id, question FROM log_requests ORDER BY 1") == \
        rows(alone, "SELECT request_id, question FROM log_requests ORDER BY 1")
    assert rows(chapter_db, "SELECT file, line FROM log_rejects") == [("broken.json", 1)]


BLANKS = ["", "  ", "\t", "\r", " \t\r"]
NOT_OBJECTS = ["oops", "[1]", '"x"', '{"request_id": "cut']
UNPARSED = ["oops", '{"request_id": "cut']  # no JSON: the NDJSON reader refuses the file


def read_lines(reader: Callable[[duckdb.DuckDBPyConnection, Path, str], bool | None], path: Path) -> tuple[object, list]:
    con = duckdb.connect()
    try:
        con.execute("CREATE TEMP TABLE log_lines (file VARCHAR, line BIGINT, record JSON, text VARCHAR)")
        result = reader(con, path, "day.jsonl")
        return result, con.execute("SELECT line, CAST(record AS VARCHAR), text FROM log_lines ORDER BY line").fetchall()
    finally:
        con.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(BLANKS), st.integers(0, 9)), min_size=1, max_size=30),
       st.lists(st.tuples(st.integers(0, 29), st.sampled_from(NOT_OBJECTS)), max_size=3), st.booleans())
def test_every_reader_numbers_records_by_their_lines(lines: list[str | int], bad: list[tuple[int, str]],
                                                     last_newline: bool) -> None:
    """The NDJSON reader skips blank lines, and evalwh numbers its records back; a file it cannot
    parse is read a part at a time (here parts of a few lines), each part by that reader where it can,
    else line by line. Every way gives each record, and each line that is not an object, its own number."""
    texts = [json.dumps({"request_id": f"r{n}-{item}"}) if isinstance(item, int) else item for n, item in enumerate(lines, 1)]
    for at, text in bad:
        texts[at % len(texts)] = text
    expected = [(n, None, t) if t in NOT_OBJECTS else (n, t, None)
                for n, t in enumerate(texts, 1) if t not in BLANKS]  # each record as logged, on its own line
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "day.jsonl"
        path.write_text("\n".join(texts) + ("\n" if last_newline else ""), encoding="utf-8")
        fast = read_lines(logs.read_json_lines_fast, path)
        exact = read_lines(logs.read_json_lines_exact, path)
        with patch.object(logs, "PART_BYTES", 64):
            in_parts = read_lines(logs.read_json_lines_in_parts, path)
    if any(t in UNPARSED for t in texts):
        assert fast == (False, [])  # it reads nothing, and says so
    else:
        assert fast == (True, expected)
    assert exact == (None, expected)
    assert in_parts == (None, expected)


def test_a_large_log_with_a_bad_line_is_read_in_parts_within_the_memory_limit(tmp_path: Path) -> None:
    """Line-exact reading holds the text it splits several times over: a 21 MiB log read whole needs more
    than 96 MB; read in parts of 1 MiB it fits in 48 MB, and keeps its line numbers."""
    log = tmp_path / "day.jsonl"
    good = json.loads((LOGS / "evalwh.jsonl").read_text(encoding="utf-8").splitlines()[0])
    with log.open("w", encoding="utf-8") as out:
        for n in range(40_000):
            out.write(json.dumps({**good, "request_id": f"q{n}", "answer": "x" * 200}) + "\n")
            if n == 30_000:
                out.write('{"request_id": "cut\n')
    readers = {"whole": logs.read_json_lines_exact, "in parts": logs.read_json_lines_in_parts}
    found: dict[str, Any] = {}
    for name, reader in readers.items():
        con = duckdb.connect()
        con.execute("SET memory_limit = '48MB'")
        con.execute("CREATE TEMP TABLE log_lines (file VARCHAR, line BIGINT, record JSON, text VARCHAR)")
        try:
            with patch.object(logs, "PART_BYTES", 1 << 20):
                reader(con, log, "day.jsonl")
            found[name] = con.execute("SELECT count(record), list(line) FILTER (WHERE record IS NULL), "
                                      "max(line) FROM log_lines").fetchone()
        except duckdb.OutOfMemoryException:
            found[name] = "out of memory"
        finally:
            con.close()
    assert found == {"whole": "out of memory", "in parts": (40_000, [30_002], 40_001)}


def test_two_files_of_one_name_are_told_apart_by_their_paths(chapter_db: Path, tmp_path: Path) -> None:
    """A record is known by (file, line): hourly logs in dated folders share a base name, and a bad line 2
    in one must not set aside line 2 of the other, nor their good lines be read twice."""
    good = json.loads((LOGS / "evalwh.jsonl").read_text(encoding="utf-8").splitlines()[0])
    paths = []
    for day, second_refused in (("2026-12-01", "maybe"), ("2026-12-02", False)):
        (tmp_path / day).mkdir()
        path = tmp_path / day / "app.jsonl"
        path.write_text("\n".join(json.dumps({**good, "request_id": f"{day}-{n}", "refused": refused})
                                  for n, refused in ((1, False), (2, second_refused))) + "\n", encoding="utf-8")
        paths.append(path)
    refused = run(chapter_db, "logs", "import", *map(str, paths))
    assert (refused.exit_code, refused.stderr) == (
        2, f"evalwh: error: {paths[0]}: line 2: refused is not a boolean (use --skip-bad to set such records aside)\n")
    result = import_logs(chapter_db, paths, skip_bad=True)
    assert (result.requests, result.rejects) == (3, 1)
    assert rows(chapter_db, "SELECT request_id FROM log_requests ORDER BY request_id") == [
        ("2026-12-01-1",), ("2026-12-02-1",), ("2026-12-02-2",)]
    assert rows(chapter_db, "SELECT file, line FROM log_rejects") == [(str(paths[0]), 2)]
    assert rows(chapter_db, "SELECT files FROM log_batches") == [([str(p) for p in paths],)]


def test_files_read_together_keep_each_files_line_numbers(chapter_db: Path, tmp_path: Path) -> None:
    # several files go into the import's lines in one insert: each keeps its own numbering, blank lines
    # (read by the fast reader) and an unparseable line (the file read in parts) included
    good = json.loads((LOGS / "evalwh.jsonl").read_text(encoding="utf-8").splitlines()[0])

    def record(name: str, n: int, **changes: object) -> str:
        return json.dumps({**good, "request_id": f"{name}-{n}", **changes})

    texts = {
        "a.jsonl": [record("a", 1), "", "  ", record("a", 4, refused="maybe"), record("a", 5)],
        "b.jsonl": [record("b", 1), record("b", 2, ts="noon")],
        "c.jsonl": [record("c", 1), '{"request_id": "c-2", ', record("c", 3, refused="maybe")],
    }
    paths = []
    for name, lines in texts.items():
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = import_logs(chapter_db, paths, skip_bad=True)
    assert (result.requests, result.rejects) == (4, 4)
    assert rows(chapter_db, "SELECT file, line FROM log_rejects ORDER BY file, line") == [
        ("a.jsonl", 4), ("b.jsonl", 2), ("c.jsonl", 2), ("c.jsonl", 3)]
    assert rows(chapter_db, "SELECT request_id, raw->>'request_id' FROM log_requests ORDER BY request_id") == [
        ("a-1", "a-1"), ("a-5", "a-5"), ("b-1", "b-1"), ("c-1", "c-1")]


def test_the_same_log_file_twice_is_refused(chapter_db: Path) -> None:
    log = LOGS / "evalwh.jsonl"
    result = run(chapter_db, "logs", "import", str(log), str(log.parent / "." / log.name))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"evalwh: error: {log.parent / log.name}: the same log file is given twice\n"
    assert rows(chapter_db, "SELECT count(*) FROM log_batches") == [(0,)]


def test_version_7_log_tables_are_migrated_with_their_rows_and_compressed_by_column(db: Path) -> None:
    from evalwh.warehouse import open_warehouse

    con = warehouse_at_version(db, 7)
    con.execute("""INSERT INTO log_requests VALUES ('b1', 'evalwh', 'r1', 's', TIMESTAMP '2026-11-30 09:00:00', 'Why?',
                   'Because.', NULL, NULL, false, NULL, '{"request_id": "r1"}', ['why'], ['why'])""")
    con.execute("INSERT INTO log_retrievals VALUES ('b1', 'evalwh', 'r1', 1, 'k', 0.5, NULL, 'id')")
    con.execute("INSERT INTO log_citations VALUES ('b1', 'evalwh', 'r1', 1, 'k', 'A quote', 'a quote', 'resolved')")
    con.close()
    before = {t: rows(db, f"SELECT * FROM {t}") for t in ("log_requests", "log_retrievals", "log_citations")}
    with open_warehouse(db, write=True):
        pass
    # the columns schema 9 adds (a retrieval's metadata, a citation's location) come after, empty
    after = {t: rows(db, f"SELECT * FROM {t}") for t in before}
    assert after["log_requests"] == before["log_requests"]
    assert after["log_retrievals"] == [(*row, None) for row in before["log_retrievals"]]
    assert after["log_citations"] == [(*row, None) for row in before["log_citations"]]
    # a new import: the raw record is stored with zstd, the batch id by DuckDB's own choice
    import_logs(db, [LOGS / "evalwh.jsonl"])
    con = duckdb.connect(str(db))
    con.execute("CHECKPOINT")
    used = dict(con.execute("SELECT column_name, list(DISTINCT compression) FROM pragma_storage_info('log_requests') "
                            "WHERE segment_type <> 'VALIDITY' GROUP BY column_name").fetchall())
    con.close()
    if not DUCKDB_1:  # DuckDB 1.4 keeps such a small column uncompressed whatever it is asked
        assert used["raw"] == ["ZSTD"]
        assert "ZSTD" not in used["log_batch_id"]


def test_log_format_is_its_own_flag_and_the_old_spelling_still_works(chapter_db: Path) -> None:
    # -f means the output format in every command; the log format is --log-format
    old = run(chapter_db, "logs", "import", str(LOGS / "evalwh.jsonl"), "--format", "evalwh")
    assert old.exit_code == 0, old.stderr
    assert old.stderr.startswith("evalwh: logs import --format is now --log-format")
    assert "(evalwh)" in old.stderr.splitlines()[1]
    both = run(chapter_db, "logs", "import", str(LOGS / "evalwh.jsonl"), "--format", "evalwh", "--log-format", "otlp")
    assert both.exit_code == 2 and "give --log-format alone" in both.stderr
    shown = run(chapter_db, "logs", "import", "--help")
    assert "--log-format" in shown.stdout and "--format" not in shown.stdout.replace("--log-format", "")


def test_every_row_command_writes_its_rows_to_o(chapter_db: Path, tmp_path: Path) -> None:
    for command in (["runs"], ["status"], ["metrics"], ["sweep"], ["scores"], ["logs", "show", "health"],
                    ["logs", "batches"], ["sql", "SELECT 1 AS one"]):
        target = tmp_path / f"{'-'.join(command[:2])}.csv"
        result = run(chapter_db, *command, "-f", "csv", "-o", str(target))
        assert result.exit_code == 0, (command, result.stderr)
        assert result.stdout == "", command
        assert target.read_text(encoding="utf-8").splitlines()[0], command  # a header at least


def test_a_few_thousand_records_import_within_the_default_memory(tmp_path: Path) -> None:
    """DuckDB 1.4 pushed the record checks' error filter into their list lambdas and ran out of memory
    on 1,000 records of three documents each; every record here is good, so all are stored."""
    log = tmp_path / "day.jsonl"
    with log.open("w", encoding="utf-8") as f:
        for n in range(3_000):
            docs = [{"chunk_id": f"doc-{(n + k) % 97}", "score": 0.5, "content": "text " * 20} for k in range(3)]
            f.write(json.dumps({"request_id": f"r{n}", "question": "How many days?", "answer": "Ten days [1].",
                                "retrieved": docs, "cited": [{"chunk_id": docs[0]["chunk_id"], "quote": "text"}]})
                    + "\n")
    result = import_logs(tmp_path / "wh.duckdb", [log])
    assert (result.requests, result.rejects) == (3_000, 0)
    assert rows(tmp_path / "wh.duckdb", "SELECT count(*) FROM log_retrievals") == [(9_000,)]
