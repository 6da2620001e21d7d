"""Production logs as their producers write them: every stored field against the scenario they encode.

``tests/logs/producers/`` holds files written by each producer's own library (``generate.py``, the
``logs`` extra); ``scenario.py`` says what they hold. Each test imports a producer's files and compares
what evalwh stores, field by field, with the scenario projected through what that format can carry
(``expected_*`` below, written from the scenario alone). Where the producer libraries are installed the
files are also regenerated into a temporary folder and checked the same way.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.logs import import_logs
from tests.conftest import CHAPTER3, rows, snapshot
from tests.logs.producers.scenario import MODEL, REQUESTS, Request, by_key, trace_hex

PRODUCERS = Path(__file__).resolve().parent / "logs" / "producers"
GOLD = {"r1": ["handbook-1"], "r2": ["network-1"], "r3": ["expenses-1"], "r4": []}  # gen_ragas.GOLD


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is missing
        return False


def producer_folders() -> Iterator[Any]:
    yield pytest.param(PRODUCERS, id="committed")
    libraries = ("opentelemetry.sdk", "openinference.instrumentation", "anthropic", "ragas", "deepeval")
    yield pytest.param(None, id="regenerated", marks=pytest.mark.skipif(
        not all(installed(name) for name in libraries),
        reason="the producer libraries (pip install -e '.[logs]') are not installed"))


@pytest.fixture(scope="module", params=list(producer_folders()))
def folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if request.param is not None:
        return Path(request.param)
    from tests.logs.producers.generate import generate

    out = tmp_path_factory.mktemp("producers")
    generate(out)
    return out


@pytest.fixture
def chapter_db(db: Path) -> Path:
    load_run(db, CHAPTER3, run="chapter3")
    return db


def naive(moment: dt.datetime) -> dt.datetime:
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None)


def stored_requests(db: Path) -> dict[str, tuple[Any, ...]]:
    """request_id -> (session, ts, question, answer, model, finish_reason, refused)."""
    return {r[0]: r[1:] for r in rows(db, "SELECT request_id, session_id, ts, question, answer, model, finish_reason, "
                                          "refused FROM log_requests")}


def stored_retrievals(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """request_id -> [(rank, chunk_id, score, content, id_source)] in rank order."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    for r in rows(db, "SELECT request_id, rank, chunk_id, score, content, id_source FROM log_retrievals "
                      "ORDER BY request_id, rank"):
        found.setdefault(r[0], []).append(r[1:])
    return found


def stored_citations(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """request_id -> [(position, chunk_id, quote, resolution, location type)] in answer order."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    for r in rows(db, "SELECT request_id, position, chunk_id, quote, resolution, location->>'type' FROM log_citations "
                      "ORDER BY request_id, position"):
        found.setdefault(r[0], []).append(r[1:])
    return found


def marker_citations(request: Request) -> list[tuple[Any, ...]]:
    """An [n] marker names the n-th retrieved document and carries no quote or location."""
    return [(n, request.docs[c.rank - 1].chunk_id, None, "resolved", None) for n, c in enumerate(request.cites, 1)]


def import_ok(db: Path, *files: Path, fmt: str | None = None) -> Any:
    result = import_logs(db, list(files), fmt)
    assert result.rejects == 0
    return result


# --- OpenTelemetry GenAI traces (opentelemetry-sdk) --------------------------------------------------------------

OTEL_GROUPS = [("otel_batch.jsonl",), ("otel_simple.jsonl",), ("otel_protobuf.json",),
               ("otel_events_spans.jsonl", "otel_events_logs.jsonl")]


@pytest.mark.parametrize("files", OTEL_GROUPS, ids=lambda f: "+".join(f))
def test_otel_genai_traces_arrive_whole(folder: Path, chapter_db: Path, files: tuple[str, ...]) -> None:
    result = import_ok(chapter_db, *(folder / "otel" / f for f in files))
    assert (result.source, result.requests, result.pending) == ("otlp", 4, 0)
    assert stored_requests(chapter_db) == {
        trace_hex(r): (r.session, naive(r.ts), r.question, r.answer, MODEL, r.finish_reason, None) for r in REQUESTS}
    # the conventions' documents hold an id and a score, no text
    assert stored_retrievals(chapter_db) == {
        trace_hex(r): [(n, d.chunk_id, d.score, None, "id") for n, d in enumerate(r.docs, 1)] for r in REQUESTS}
    assert stored_citations(chapter_db) == {trace_hex(r): marker_citations(r) for r in REQUESTS if r.cites}


def test_a_trace_split_over_two_imports_is_completed_by_the_second(folder: Path, chapter_db: Path) -> None:
    r1 = REQUESTS[0]
    first = CliRunner().invoke(app, ["--db", str(chapter_db), "logs", "import", str(folder / "otel" / "otel_split_children.jsonl")])
    assert first.exit_code == 0, first.stderr
    assert "1 trace(s) have spans but no root span yet: kept in log_pending" in first.stderr
    assert rows(chapter_db, "SELECT count(*) FROM log_requests") == [(0,)]
    assert rows(chapter_db, "SELECT source, trace_ids FROM log_pending") == [("otlp", [trace_hex(r1)])]
    second = import_ok(chapter_db, folder / "otel" / "otel_split_roots.jsonl")
    assert (second.requests, second.completed, second.pending) == (1, 1, 0)
    assert stored_requests(chapter_db) == {
        trace_hex(r1): (r1.session, naive(r1.ts), r1.question, r1.answer, MODEL, "stop", None)}
    assert stored_retrievals(chapter_db)[trace_hex(r1)] == [
        (n, d.chunk_id, d.score, None, "id") for n, d in enumerate(r1.docs, 1)]
    assert rows(chapter_db, "SELECT count(*) FROM log_pending") == [(0,)]


def test_spans_arriving_after_their_root_are_named_not_joined(folder: Path, chapter_db: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(chapter_db), "logs", "import", str(folder / "otel" / "otel_split_roots.jsonl")]).exit_code == 0
    late = runner.invoke(app, ["--db", str(chapter_db), "logs", "import", str(folder / "otel" / "otel_split_children.jsonl")])
    assert late.exit_code == 0
    assert (f"evalwh: 1 trace(s) imported earlier got more spans here, which cannot join them: first "
            f"{trace_hex(REQUESTS[0])}") in late.stderr
    assert rows(chapter_db, "SELECT count(*) FROM log_pending") == [(0,)]


# --- OpenInference spans in OTLP files (openinference-instrumentation, its LangChain instrumentor) -----------------

@pytest.mark.parametrize("name,finish", [("openinference_otlp.jsonl", None), ("openinference_otlp_genai.jsonl", "stop")])
def test_openinference_spans_inside_otlp_files(folder: Path, chapter_db: Path, name: str, finish: str | None) -> None:
    """OpenInference's own attributes alone, and with enable_genai_semconv (which adds the GenAI conventions'
    attributes, and a finish reason, beside them): the same requests, each document once."""
    import_ok(chapter_db, folder / "openinference" / name)
    assert stored_requests(chapter_db) == {
        trace_hex(r): (r.session, naive(r.ts), r.question, r.answer, MODEL, finish, None) for r in REQUESTS}
    assert stored_retrievals(chapter_db) == {
        trace_hex(r): [(n, d.chunk_id, d.score, d.text, "id") for n, d in enumerate(r.docs, 1)] for r in REQUESTS}
    assert stored_citations(chapter_db) == {trace_hex(r): marker_citations(r) for r in REQUESTS if r.cites}


def test_langchain_documents_take_their_ids_from_metadata(folder: Path, chapter_db: Path) -> None:
    """The instrumentor writes a LangChain document's metadata, never its id: the chunk id is the metadata's
    chunk_id; the fake chat model names no model."""
    import_ok(chapter_db, folder / "langchain" / "langchain_otlp.jsonl")
    assert stored_requests(chapter_db) == {
        trace_hex(r): (r.session, naive(r.ts), r.question, r.answer, None, None, None) for r in REQUESTS}
    assert stored_retrievals(chapter_db) == {
        trace_hex(r): [(n, d.chunk_id, None, d.text, "metadata") for n, d in enumerate(r.docs, 1)] for r in REQUESTS}
    assert stored_citations(chapter_db) == {trace_hex(r): marker_citations(r) for r in REQUESTS if r.cites}


def test_a_citation_of_a_document_without_an_id_is_unresolved_not_dangling(folder: Path, chapter_db: Path) -> None:
    import_ok(chapter_db, folder / "langchain" / "langchain_noid_otlp.jsonl")
    r1 = trace_hex(REQUESTS[0])
    first = stored_retrievals(chapter_db)[r1][0]
    assert (first[1], first[4]) == (None, "none")  # kept, with no chunk id
    assert stored_citations(chapter_db)[r1] == [(1, None, None, "unresolved", None)]
    health = dict(((r, p), s) for r, p, s in rows(chapter_db, "SELECT request_id, position, status FROM log_citation_health"))
    assert health[(r1, 1)] == "UNRESOLVED"
    assert health[(trace_hex(by_key("r3")), 1)] == "DANGLING"  # expenses-9 is not in the chapter's store
    metrics = dict(rows(chapter_db, "SELECT metric, value FROM log_metrics"))
    # by hand: 3 citations, 1 unresolved; of the 2 naming a chunk, 1 dangles; no quote was checked
    assert metrics["log_unresolved_rate"] == pytest.approx(1 / 3)
    assert metrics["log_dangling_rate"] == pytest.approx(1 / 2)
    assert metrics["log_unsupported_rate"] is None


def test_with_other_id_keys_a_document_keeps_no_chunk_id(folder: Path, chapter_db: Path) -> None:
    import_logs(chapter_db, [folder / "langchain" / "langchain_otlp.jsonl"], id_keys=["uuid"])
    assert {r[4] for docs in stored_retrievals(chapter_db).values() for r in docs} == {"none"}
    assert CliRunner().invoke(app, ["--db", str(chapter_db), "logs", "import", "--id-keys", "a,,b",
                                    str(folder / "langchain" / "langchain_otlp.jsonl")]).exit_code == 2


# --- Anthropic Messages API (anthropic SDK over a mock transport) ---------------------------------------------------

def anthropic_requests(requests: tuple[Request, ...] = REQUESTS) -> dict[str, tuple[Any, ...]]:
    return {f"req_scenario_{r.number:02d}": (r.session, naive(r.ts), r.question, r.answer if r.refused else r.plain_answer,
                                             MODEL, "refusal" if r.refused else "end_turn", r.refused) for r in requests}


@pytest.mark.parametrize("name,location", [
    ("anthropic_documents.jsonl", "char_location"), ("anthropic_search_results.jsonl", "search_result_location"),
    ("anthropic_tool_results.jsonl", "search_result_location"), ("anthropic_string_response.jsonl", "char_location")])
def test_anthropic_exchanges(folder: Path, chapter_db: Path, name: str, location: str) -> None:
    """Documents, top-level search results, search results inside tool results, and a response logged as
    the JSON text of its Message: the same requests, passages and citations."""
    import_ok(chapter_db, folder / "anthropic" / name)
    assert stored_requests(chapter_db) == anthropic_requests()
    assert stored_retrievals(chapter_db) == {
        f"req_scenario_{r.number:02d}": [(n, d.chunk_id, None, d.text, "id") for n, d in enumerate(r.docs, 1)]
        for r in REQUESTS}
    assert stored_citations(chapter_db) == {
        f"req_scenario_{r.number:02d}": [(n, r.docs[c.rank - 1].chunk_id, c.quote, "resolved", location)
                                         for n, c in enumerate(r.cites, 1)] for r in REQUESTS if r.cites}
    metrics = dict(rows(chapter_db, "SELECT metric, value FROM log_metrics"))
    # by hand: r4 refused (stop_reason refusal) of 4; r1's quote is in handbook-1, r2's is not in network-1;
    # r3 cites expenses-9, which the chapter's store lacks
    assert (metrics["log_refusal_rate"], metrics["log_unsupported_rate"], metrics["log_dangling_rate"]) == (
        pytest.approx(0.25), pytest.approx(0.5), pytest.approx(1 / 3))


def test_anthropic_numbers_search_results_across_messages_and_tool_results(folder: Path, chapter_db: Path) -> None:
    """r3's second passage is a top-level search result (index 0), its first comes in a tool result (index 1):
    the answer cites index 1, then index 0."""
    import_ok(chapter_db, folder / "anthropic" / "anthropic_mixed.jsonl")
    r3 = by_key("r3")
    assert stored_citations(chapter_db) == {"req_scenario_03": [
        (1, "expenses-9", r3.cites[0].quote, "resolved", "search_result_location"),
        (2, "expenses-1", r3.docs[1].text, "resolved", "search_result_location")]}
    assert [(rank, chunk) for rank, chunk, *_ in stored_retrievals(chapter_db)["req_scenario_03"]] == [
        (1, "expenses-1"), (2, "expenses-9")]  # in the order the request shows them


def test_anthropic_documents_of_every_source_type(folder: Path, chapter_db: Path) -> None:
    """A PDF (base64 or URL) has no text here; a custom-content document's text is its blocks joined, as
    the API joins cited blocks; plain text is its data. Each citation keeps its location type."""
    import_ok(chapter_db, folder / "anthropic" / "anthropic_sources.jsonl")
    kinds = ("pdf", "content", "url", "text")  # gen_anthropic.sources: by request number and position
    expected_docs, expected_cites = {}, {}
    for r in REQUESTS[:3]:
        docs, cites = [], []
        for i, d in enumerate(r.docs):
            kind = kinds[(r.number + i - 1) % 4]
            blocks = [part + "." for part in d.text.split(". ") if part]
            text = {"pdf": None, "url": None, "text": d.text, "content": "".join(blocks)}[kind]
            docs.append((i + 1, d.chunk_id, None, text, "id"))
            quote = blocks[0] if kind == "content" else d.text
            location = {"pdf": "page_location", "url": "page_location", "text": "char_location",
                        "content": "content_block_location"}[kind]
            cites.append((i + 1, d.chunk_id, quote, "resolved", location))
        expected_docs[f"req_scenario_{r.number:02d}"] = docs
        expected_cites[f"req_scenario_{r.number:02d}"] = cites
    assert stored_retrievals(chapter_db) == expected_docs
    assert stored_citations(chapter_db) == expected_cites


# --- RAGAS and DeepEval -------------------------------------------------------------------------------------------

RAGAS_WRITERS = ["ragas_to_jsonl.jsonl", "ragas_to_csv.csv", "ragas_pandas.parquet", "ragas_hf.jsonl",
                 "ragas_hf.parquet", "ragas_evaluate.parquet", "ragas_evaluate.jsonl"]


def evaluation_requests(db: Path) -> dict[str, tuple[Any, ...]]:
    """question -> (session, ts, answer, model, finish_reason, refused)."""
    return {q: tuple(rest) for q, *rest in (
        (r[3], r[1], r[2], r[4], r[5], r[6], r[7]) for r in rows(
            db, "SELECT request_id, session_id, ts, question, answer, model, finish_reason, refused FROM log_requests"))}


@pytest.mark.parametrize("name", RAGAS_WRITERS)
def test_ragas_samples_from_every_writer(folder: Path, chapter_db: Path, name: str) -> None:
    import_ok(chapter_db, folder / "ragas" / name)
    assert evaluation_requests(chapter_db) == {r.question: (None, None, r.answer, None, None, None) for r in REQUESTS}
    by_question = {q: i for i, q in rows(chapter_db, "SELECT request_id, question FROM log_requests")}
    assert stored_retrievals(chapter_db) == {
        by_question[r.question]: [(n, d.chunk_id, None, d.text, "id") for n, d in enumerate(r.docs, 1)] for r in REQUESTS}
    assert stored_citations(chapter_db) == {by_question[r.question]: marker_citations(r) for r in REQUESTS if r.cites}
    metadata = {q: m for q, m in rows(chapter_db, "SELECT question, metadata FROM log_requests")}
    for r in REQUESTS:
        import json

        kept = json.loads(metadata[r.question])
        assert (kept["reference"], kept["reference_context_ids"]) == (r.reference, GOLD[r.key])
        if "evaluate" in name:  # evaluate()'s metric columns, by hand: ID-based precision and recall
            retrieved = [d.chunk_id for d in r.docs]
            hits = len(set(retrieved) & set(GOLD[r.key]))
            assert kept["metrics"]["id_based_context_precision"] == pytest.approx(hits / len(retrieved))
            assert kept["metrics"]["id_based_context_recall"] == (
                pytest.approx(hits / len(GOLD[r.key])) if GOLD[r.key] else None)  # no reference ids: NaN, stored as null
            assert kept["metrics"]["exact_match"] == (1.0 if r.answer == r.reference else 0.0)
        else:
            assert kept["metrics"] == {}


def test_a_ragas_sample_has_one_id_in_every_writer(folder: Path, db: Path) -> None:
    ids = set()
    for name in RAGAS_WRITERS:
        result = import_logs(db, [folder / "ragas" / name])
        ids.add(frozenset(r[0] for r in rows(db, "SELECT request_id FROM log_requests")))
        assert result.requests == (4 if name == RAGAS_WRITERS[0] else 0), name  # the same four samples again
    (only,) = ids
    assert len(only) == 4


DEEPEVAL_FILES = ["deepeval_goldens.json", "deepeval_goldens.jsonl", "deepeval_goldens.csv", "deepeval_results.json",
                  "deepeval_latest_test_run.json"]


@pytest.mark.parametrize("name", DEEPEVAL_FILES)
def test_deepeval_goldens_and_test_results(folder: Path, chapter_db: Path, name: str) -> None:
    result = import_ok(chapter_db, folder / "deepeval" / name)
    assert result.source == "deepeval"
    assert evaluation_requests(chapter_db) == {r.question: (None, None, r.answer, None, None, None) for r in REQUESTS}
    by_question = {q: i for i, q in rows(chapter_db, "SELECT request_id, question FROM log_requests")}
    # the chunk ids travel in the case's metadata (retrieval_context_ids), in goldens and results alike
    assert stored_retrievals(chapter_db) == {
        by_question[r.question]: [(n, d.chunk_id, None, d.text, "metadata") for n, d in enumerate(r.docs, 1)]
        for r in REQUESTS}
    assert stored_citations(chapter_db) == {by_question[r.question]: marker_citations(r) for r in REQUESTS if r.cites}


def test_a_golden_and_its_test_result_are_one_request(folder: Path, db: Path) -> None:
    assert import_logs(db, [folder / "deepeval" / "deepeval_goldens.json"]).requests == 4
    for name in DEEPEVAL_FILES[1:]:
        assert import_logs(db, [folder / "deepeval" / name]).requests == 0, name


# --- every format: no data is no data, one format an import, files that are no log ----------------------------------

@pytest.mark.parametrize("producer,name", [("otel", "otel_batch.jsonl"), ("openinference", "openinference_otlp.jsonl"),
                                           ("ragas", "ragas_to_jsonl.jsonl"), ("deepeval", "deepeval_goldens.json")])
def test_a_format_that_records_no_refusal_has_no_refusal_rate(folder: Path, chapter_db: Path, producer: str,
                                                              name: str) -> None:
    import_ok(chapter_db, folder / producer / name)
    assert rows(chapter_db, "SELECT DISTINCT refused FROM log_requests") == [(None,)]
    assert rows(chapter_db, "SELECT value FROM log_metrics WHERE metric = 'log_refusal_rate'") == [(None,)]
    assert rows(chapter_db, "SELECT DISTINCT refusals FROM log_daily") == [(None,)]
    assert rows(chapter_db, "SELECT DISTINCT refused_in_production FROM log_refusal_replay") == [(None,)]


def test_files_of_different_formats_are_refused_together(folder: Path, chapter_db: Path) -> None:
    before = snapshot(chapter_db)
    result = CliRunner().invoke(app, ["--db", str(chapter_db), "logs", "import",
                                      str(folder / "anthropic" / "anthropic_documents.jsonl"),
                                      str(PRODUCERS.parent / "evalwh.jsonl")])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == ("evalwh: error: logs of different formats in one import (anthropic_documents.jsonl is "
                             "anthropic, evalwh.jsonl is evalwh); import each format on its own\n")
    forced = CliRunner().invoke(app, ["--db", str(chapter_db), "logs", "import", "--log-format", "ragas",
                                      str(folder / "deepeval" / "deepeval_goldens.jsonl")])
    assert (forced.exit_code, forced.stderr) == (
        2, "evalwh: error: deepeval_goldens.jsonl is in the deepeval format, not ragas (leave out --log-format, or "
           "give it deepeval)\n")
    assert snapshot(chapter_db) == before


@pytest.mark.parametrize("text,looks", [
    ("user_input,response\nq,a\n", "CSV or another delimited text"),
    ("INFO starting server\nINFO listening on :8080\n", "text that is not JSON (console output?)"),
    ('{"resourceMetrics": []}\n', "an OpenTelemetry metrics export (no requests in it)"),
    ('{"hello": 1}\n', "JSON objects with the keys hello"),
])
def test_a_file_that_is_no_log_is_refused_even_with_skip_bad(chapter_db: Path, tmp_path: Path, text: str,
                                                              looks: str) -> None:
    log = tmp_path / "app.log"
    log.write_text(text, encoding="utf-8")
    before = snapshot(chapter_db)
    for extra in ([], ["--skip-bad"], ["--log-format", "evalwh", "--skip-bad"]):
        result = CliRunner().invoke(app, ["--db", str(chapter_db), "logs", "import", str(log), *extra])
        assert result.exit_code == 2, (extra, result.stderr)
        assert result.stderr.count("\n") == 1 and looks in result.stderr, (extra, result.stderr)
    assert snapshot(chapter_db) == before


def test_an_empty_log_file_is_named(chapter_db: Path, tmp_path: Path) -> None:
    for text in ("", "\n  \n"):
        log = tmp_path / "empty.jsonl"
        log.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(app, ["--db", str(chapter_db), "logs", "import", str(log)])
        assert (result.exit_code, result.stderr) == (
            2, "evalwh: error: empty.jsonl: the file holds no log records (it is empty or blank)\n")


# --- RAGAS and DeepEval datasets loaded as evaluation runs -----------------------------------------------------------

def run_tables(db: Path, run: str) -> dict[str, list[tuple[Any, ...]]]:
    return {
        "chunks": rows(db, f"SELECT chunk_id, text FROM chunks WHERE run_id = '{run}' ORDER BY ordinal"),
        "questions": rows(db, f"SELECT question_id, question, expected, gold, gold_chunk_id FROM questions "
                              f"WHERE run_id = '{run}' ORDER BY ordinal"),
        "retrievals": rows(db, f"SELECT question_id, rank, chunk_id FROM retrievals WHERE run_id = '{run}' "
                               "ORDER BY question_id, rank"),
        "responses": rows(db, f"SELECT question_id, answer, sources FROM responses WHERE run_id = '{run}' "
                              "ORDER BY question_id"),
    }


def expected_run(with_gold: bool) -> dict[str, list[tuple[Any, ...]]]:
    """The scenario as a run: a question's id is q- and its text's MD5 (12 hex digits); [n] names the n-th
    retrieved context."""
    import hashlib

    qid = {r.key: "q-" + hashlib.md5(r.question.encode()).hexdigest()[:12] for r in REQUESTS}
    chunks: dict[str, str] = {}
    for r in REQUESTS:
        for d in r.docs:
            chunks.setdefault(d.chunk_id, d.text)
    return {
        "chunks": list(chunks.items()),
        "questions": [(qid[r.key], r.question, "answer", r.reference,
                       GOLD[r.key][0] if with_gold and GOLD[r.key] else None) for r in REQUESTS],
        "retrievals": sorted((qid[r.key], n, d.chunk_id) for r in REQUESTS for n, d in enumerate(r.docs, 1)),
        "responses": sorted((qid[r.key], r.answer, [r.docs[c.rank - 1].chunk_id for c in r.cites]) for r in REQUESTS),
    }


@pytest.mark.parametrize("producer,name", [*(("ragas", n) for n in RAGAS_WRITERS),
                                           *(("deepeval", n) for n in DEEPEVAL_FILES)])
def test_an_evaluation_dataset_file_loads_as_a_run(folder: Path, db: Path, producer: str, name: str) -> None:
    result = CliRunner().invoke(app, ["--db", str(db), "load", str(folder / producer / name), "--run", "eval"])
    assert result.exit_code == 0, result.stderr
    # RAGAS keeps the ids of the passages that hold the reference (the gold chunk); DeepEval has no such field
    assert run_tables(db, "eval") == expected_run(with_gold=producer == "ragas")


def test_a_log_file_is_no_evaluation_dataset(folder: Path, db: Path) -> None:
    result = CliRunner().invoke(app, ["--db", str(db), "load", str(folder / "otel" / "otel_batch.jsonl")])
    assert (result.exit_code, result.stderr) == (
        2, "evalwh: error: otel_batch.jsonl is otlp logs, not an evaluation dataset: load reads RAGAS and DeepEval "
           "dataset files (import logs with `evalwh logs import`)\n")
    assert not db.exists()


def test_a_dataset_whose_chunk_id_has_two_texts_is_refused(db: Path, tmp_path: Path) -> None:
    import json

    log = tmp_path / "eval.jsonl"
    samples = [{"user_input": "A?", "retrieved_contexts": ["one text"], "retrieved_context_ids": ["k1"]},
               {"user_input": "B?", "retrieved_contexts": ["another text"], "retrieved_context_ids": ["k1"]}]
    log.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    result = CliRunner().invoke(app, ["--db", str(db), "load", str(log)])
    assert (result.exit_code, result.stderr) == (
        2, "evalwh: error: eval.jsonl, row 2, column retrieved_contexts: chunk id 'k1' has another text on line 1\n")
    assert not db.exists()
