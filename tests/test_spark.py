"""Every view gives the same rows on PySpark as on DuckDB, over an `evalwh export` of the seeds and
fixtures; a log imported on Spark gives the same log rows as `evalwh logs import`.

Needs pyspark and Java (the ``spark`` extra; .ci/run installs it). Outside CI the test is skipped
when pyspark is missing; in CI it must run.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.logs import import_logs
from evalwh.resources import model_sources
from tests.conftest import write_table
from tests.test_axes import bracket_run
from tests.test_changes import BASE_ANSWERS, BASE_CLAIMS, NEXT_ANSWERS, NEXT_CLAIMS, run_folder
from tests.test_fuzz import SAMPLE_FORMATS, TEXT, write_mutated_sample

# minutes of a JVM: make test-slow runs these (and .ci/run)
pytestmark = pytest.mark.slow

LOGS_DIR = Path(__file__).resolve().parent / "logs"

SEEDS = ("chapter3", "handbook", "three-axis")
HANDBOOK = Path(__file__).resolve().parents[1] / "seeds" / "handbook"


def _need_spark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI must install pyspark (see .ci/run)")
        pytest.skip("needs pyspark (pip install 'evalwh[spark]')")


def normal(value: Any) -> Any:
    """One value as both engines' rows are compared: floats to 12 significant digits, structs and lists
    as tuples, times as ISO text."""
    if isinstance(value, float):
        return None if math.isnan(value) else float(f"{value:.12g}")
    if isinstance(value, decimal.Decimal):
        return float(f"{float(value):.12g}")
    if isinstance(value, (list, tuple)):
        return tuple(normal(v) for v in value)
    if isinstance(value, dict):
        return tuple(normal(v) for v in value.values())
    if hasattr(value, "asDict"):
        return tuple(normal(v) for v in value.asDict().values())
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    return value


def rows_of(records: list[Any]) -> list[str]:
    return sorted(repr(tuple(normal(v) for v in record)) for record in records)


def graded_run(folder: Path) -> Path:
    """Hand grades and two judges' grades of five questions (the judges disagree with people on some)."""
    write_table(folder / "questions.csv", ["question_id", "question", "expected"],
                [[f"q{i}", "?", "answer"] for i in range(5)])
    write_table(folder / "grades.csv", ["item_id", "grader", "label"], [
        ["q0", "human", "correct"], ["q1", "human", "wrong"], ["q2", "human", "correct"], ["q3", "human", "wrong"],
        ["q0", "judge-a", "correct"], ["q1", "judge-a", "correct"], ["q3", "judge-a", "correct"],
        ["q4", "judge-a", "correct"], ["q0", "judge-b", "wrong"],
    ])
    return folder


def bracket_answers(folder: Path) -> Path:
    """A bracket-format run: markers in and out of range, numbers backed and not, an uncited long sentence."""
    chunks = {"p1": "Battery life: 12 hours.", "p2": "Price 4 990 kr.", "p3": "Colour black, 2 straps.", "p4": "Weight 1 kg."}
    answers = {
        "x": "The battery life is 12 hours [1]. The price is 4 990 kr [7].",
        "y": "It weighs 1 kg [4][2]. It comes in black with 3 straps and a case for travel [3] [10].",
        "z": "This sentence cites nothing at all and is long. Short one [0].",
    }
    return bracket_run(folder, answers, {"x": list(chunks), "y": ["p3", "p1", "p4", "p2"], "z": ["p2"]}, chunks)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The seeds, a tf-idf run, a unicode-tokenizer run, a bracket run, a graded run, two runs of one dataset
    that differ, and every sample log, in one warehouse, exported."""
    folder = tmp_path_factory.mktemp("spark")
    db = folder / "wh.duckdb"
    runner = CliRunner()
    for seed in SEEDS:
        assert runner.invoke(app, ["--db", str(db), "seed", seed]).exit_code == 0
    load_run(db, HANDBOOK, run="tfidf", overrides={"retriever": "tfidf", "top_k": 2})
    load_run(db, HANDBOOK, run="unicode", overrides={"tokenizer": "unicode", "top_k": 2})
    load_run(db, bracket_answers(folder / "bracket"), run="bracket")
    load_run(db, graded_run(folder / "graded"), run="graded")
    # the sweep over retrieval scores (score_sweep): the built-in retriever's scores of the handbook
    load_run(db, HANDBOOK, run="scored", score_thresholds=[0.5, 1.0, 2.0, 3.5])
    # two runs of one dataset whose questions and claims change (question_changes, claim_changes)
    load_run(db, run_folder(folder, "monday", BASE_ANSWERS, BASE_CLAIMS))
    load_run(db, run_folder(folder, "tuesday", NEXT_ANSWERS, NEXT_CLAIMS))
    # blessings (baselines): the handbook's second one stands; monday's dataset is blessed, then cleared
    for args in (["set", "tfidf"], ["set", "scored", "--note", "approved"], ["set", "monday"],
                 ["clear", "hr-policy"]):
        assert runner.invoke(app, ["--db", str(db), "baseline", *args]).exit_code == 0, args
    for log in sorted(p for p in LOGS_DIR.iterdir() if p.is_file()):
        assert import_logs(db, [log]).requests > 0, log.name
    assert runner.invoke(app, ["--db", str(db), "export", str(folder / "export")]).exit_code == 0
    return db, folder / "export"


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One local SparkSession (two cores, UTC, its warehouse folder temporary) for every test here."""
    _need_spark()
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers run evalwh's text UDFs
    # the fixtures are small: one shuffle partition, no adaptive re-planning and no code generation
    # take the views test from about 170 s to 110 s on 2 cores
    session = (SparkSession.builder.master("local[2]").appName("evalwh-test")
               .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "1").config("spark.sql.adaptive.enabled", "false")
               .config("spark.sql.codegen.wholeStage", "false")
               .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("spark-warehouse"))).getOrCreate())
    yield session
    session.stop()


def test_portable_views_are_equal_on_spark(spark: Any, exported: tuple[Path, Path]) -> None:
    from evalwh.spark import portable_views, register

    db, export_dir = exported
    views = portable_views()
    created = register(spark, export_dir, views)
    assert set(views) <= set(created)
    con = duckdb.connect(str(db), read_only=True)
    checked = {}
    for view in views:
        rel = con.execute(f'SELECT * FROM "{view}"')
        columns = [d[0] for d in rel.description]
        expected = rows_of(rel.fetchall())
        frame = spark.table(view).select(*[f"`{c}`" for c in columns])
        actual = rows_of(frame.collect())
        assert actual == expected, view
        checked[view] = len(expected)
    con.close()
    for view, n in checked.items():
        print(f"{view:28} {n:6} rows  equal")
    # every view, and not vacuously: each has rows on some fixture
    assert sorted(views) == sorted(model_sources())
    assert [view for view, n in checked.items() if not n] == []


LOG_RECORDS = [
    {"request_id": "a1", "ts": "2026-12-02T09:15:00Z", "session_id": "s1", "question": "ΣΟΦΊΑ and İstanbul: e-mail--list?",
     "answer": "It is 12 [1].", "refused": False, "model": "m", "finish_reason": "stop",
     "metadata": {"tenant": "x", "tags": ["a", 1]},
     "retrieved": [{"chunk_id": "handbook-1", "score": 0.5, "content": "Loan laptops: 14 days."},
                   {"chunk_id": None, "score": None}, {"chunk_id": "k3", "score": 2}],
     "cited": [{"chunk_id": "handbook-1", "quote": "Loan LAPTOPS -- 14 days"}, {"chunk_id": None, "quote": None}]},
    {"request_id": "a2", "ts": "2026-12-02T11:00:00+02:00", "question": None, "answer": "", "refused": "true",
     "retrieved": [], "cited": []},
    {"request_id": "a3", "ts": None, "question": "Café naïve?", "refused": None},
]


RAGAS_RECORDS = [
    {"id": "g1", "user_input": "Ünïcode e-mail?", "retrieved_contexts": ["one", "two 2", "three"],
     "retrieved_context_ids": ["k1", "k2"], "response": "Yes.", "reference": None},
    {"question": "Old style?", "contexts": [], "answer": "No.", "ground_truth": "no"},
    {"request_id": 7, "user_input": "A number id", "retrieved_contexts": ["x"], "retrieved_context_ids": [3]},
]


def span(trace: str, span_id: str, parent: str | None, start: str, **fields: Any) -> dict[str, Any]:
    return {"context": {"trace_id": trace, "span_id": span_id}, "parent_id": parent,
            "start_time": f"2026-12-03T10:00:0{start}+00:00", **fields}


PROVIDER_OUTPUT = json.dumps({"content": [
    "a bare string block",
    {"type": "text", "text": "One", "citations": [{"cited_text": "Loan laptops", "document_index": 0}, "odd",
                                                  {"cited_text": "far", "search_result_index": 5}]},
    {"type": "text", "text": "Two", "citations": [{"cited_text": "no index"}]}]})
OPENINFERENCE_RECORDS = [
    # nested attributes; markers in and out of range
    span("n1", "a", None, "0", attributes={"input": {"value": "Nested café?"}, "output": {"value": "A [1] [2] [9]"},
                                           "session": {"id": "s-n"}}),
    span("n1", "b", "a", "1", span_kind="RETRIEVER", attributes={"retrieval": {"documents": [
        {"document": {"id": "k1", "score": 0.5, "content": "c1"}}, "a string",
        {"document.id": "k2", "document.score": "0.25"},
        3, {"document": {"id": None}}]}}),
    span("n1", "c", "a", "2", span_kind="LLM", attributes={"llm": {"model_name": "m-first"}}),
    span("n1", "d", "a", "3", span_kind="LLM", attributes={"llm.model_name": "m-later"}),
    # flat documents with gaps, a null id and a key that only looks like one
    span("f1", "a", None, "0", attributes={"input.value": "Flat?", "output.value": "[2] and [11]"}),
    span("f1", "b", "a", "1", attributes={"retrieval.documents.10.document.id": "k10",
                                          "retrieval.documents.2.document.id": None,
                                          "retrieval.documents.1.document.id": "k1",
                                          "retrieval.documents.1.document.score": "high",
                                          "retrieval.documents.x.document.id": "kx"}),
    # a Parquet-style span of dotted columns
    {"context.trace_id": "p1", "parent_id": "", "start_time": "2026-12-03T11:00:00+00:00",
     "attributes.input.value": "Dotted?", "attributes.output.value": "Yes [1].",
     "attributes.retrieval.documents": [{"document.id": "z1"}], "attributes.openinference.span.kind": "CHAIN"},
    # provider citations in the LLM output, over two documents
    span("v1", "a", None, "0", attributes={"input.value": "Cited?", "output.value": "One. Two."}),
    span("v1", "b", "a", "1", attributes={"retrieval.documents.0.document.id": "e1",
                                          "retrieval.documents.1.document.id": "e2"}),
    span("v1", "c", "a", "2", span_kind="LLM", attributes={"output.value": PROVIDER_OUTPUT}),
    span("v2", "a", None, "0", attributes={"input.value": "Plain output?", "output.value": "[1] not JSON"}),
    span("v2", "c", "a", "2", span_kind="LLM", attributes={"output.value": "[1] not JSON"}),
]


def doc(title: str | None, text: str, **more: Any) -> dict[str, Any]:
    return {"type": "document", **({"title": title} if title else {}), "source": {"type": "text", "data": text}, **more}


ANTHROPIC_RECORDS = [
    {"ts": "2026-12-03T09:00:00+01:00",
     "request": {"metadata": {"user_id": "u-1"}, "messages": [
         {"role": "user", "content": "An earlier question?"},
         {"role": "assistant", "content": [{"type": "text", "text": "An earlier answer."}]},
         {"role": "user", "content": [{"type": "text", "text": "Part one"}, doc("d1", "Loan laptops: 14 days."),
                                      {"type": "image"}, {"type": "text", "text": "part two, café?"},
                                      {"type": "search_result", "source": "s1",
                                       "content": [{"type": "text", "text": "S1"}]},
                                      doc("d1", "The same title again."), doc(None, "No title.")]},
         {"role": "user", "content": [doc("d2", "Shown last, no text.", id="doc-2")]}]},
     "response": {"id": "msg_1", "model": "claude-x", "stop_reason": "end_turn", "content": [
         "a bare string block",
         {"type": "text", "text": "It is 14 days", "citations": [
             {"type": "char_location", "cited_text": "Loan laptops: 14 days", "document_index": 0},
             {"type": "char_location", "cited_text": "far", "document_index": 7},
             {"type": "search_result_location", "cited_text": "S1", "search_result_index": 0},
             {"type": "search_result_location", "cited_text": "by source", "source": "s-9"},
             {"type": "page_location", "cited_text": "untitled", "document_index": 2},
             {"cited_text": "last one", "document_index": 3}, "odd"]},
         {"type": "text", "text": None, "citations": None},
         {"type": "text", "text": " [done]"}]}},
    {"request_id": "r-2", "request": {"messages": [{"role": "user", "content": [{"type": "image"}]}]},
     "response": {"content": [{"type": "tool_use"}]}},
]


def otlp_span(trace: str, span_id: str, parent: str, nanos: str, attributes: dict[str, Any]) -> dict[str, Any]:
    def value(v: Any) -> dict[str, Any]:
        if isinstance(v, dict):
            return v
        kind = {bool: "boolValue", int: "intValue", float: "doubleValue"}.get(type(v), "stringValue")
        return {kind: str(v) if kind == "intValue" else v}
    return {"traceId": trace, "spanId": span_id, "parentSpanId": parent, "startTimeUnixNano": nanos,
            "attributes": [{"key": k, "value": value(v)} for k, v in attributes.items()]}


def kvlist(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {"kvlistValue": {"values": [{"key": k, "value": v} for k, v in pairs]}}


DOCUMENTS = "gen_ai.retrieval.documents"
OTLP_RECORDS = [
    {"resourceSpans": [{"scopeSpans": [{"spans": [
        otlp_span("AB" * 16, "CD" * 8, "", "1764583200123456789",
                  {"input.value": "Café hex?", "output.value": "A [1] [3] [4] [5]", "session.id": "s-1"}),
        otlp_span("AB" * 16, "ce" * 8, "CD" * 8, "1764583200300000000",
                  {DOCUMENTS: '[{"id": "k1", "score": 0.5, "content": "c"}, "k2", {"id": 3, "score": "x"}]'}),
        otlp_span("AB" * 16, "cf" * 8, "CD" * 8, "1764583200200000000",
                  {"gen_ai.request.model": "m-first", "gen_ai.response.model": "m-later",
                   DOCUMENTS: '[{"id": "early"}]'}),
        {"traceId": "AB" * 16, "spanId": "d0" * 8, "parentSpanId": "CD" * 8,
         "startTimeUnixNano": "1764583200250000000"},
    ]}]}, {"scopeSpans": [{"spans": [
        otlp_span("W47/95gDgQPSabYzgT/GDg==", "7uGbfsPBsXk=", "", "1764586800000001000",
                  {"gen_ai.retrieval.query.text": "Base64 ids?", "gen_ai.response.finish_reasons": "stop",
                   "cached": True, "temperature": 0.25, "output.value": "[2] then [1] and [3]"}),
        otlp_span("W47/95gDgQPSabYzgT/GDg==", "7uGbfsPBsXo=", "7uGbfsPBsXk=", "1764586800000002000",
                  {DOCUMENTS: {"arrayValue": {"values": [
                      kvlist(("id", {"intValue": "7"}), ("score", {"intValue": "2"}),
                             ("content", {"stringValue": "cc"})),
                      kvlist(),
                      kvlist(("id", {"stringValue": "k9"}), ("id", {"stringValue": "k10"}),
                             ("score", {"doubleValue": 0.75}))]}}}),
    ]}]}]},
]


@pytest.mark.parametrize("fmt,samples,records", [
    ("evalwh", ["evalwh.jsonl"], LOG_RECORDS),
    ("ragas", ["ragas.jsonl"], RAGAS_RECORDS),
    ("openinference", ["openinference.jsonl", "openinference_provider.jsonl"], OPENINFERENCE_RECORDS),
    ("anthropic", ["anthropic.jsonl"], ANTHROPIC_RECORDS),
    ("otlp", ["otlp.json"], OTLP_RECORDS),
])
def test_log_import_on_spark_gives_duckdbs_rows(spark: Any, tmp_path: Path, fmt: str, samples: list[str],
                                                records: list[dict[str, Any]]) -> None:
    log = tmp_path / "more.jsonl"
    log.write_text(json.dumps(records[0]) + "\n\n" + "\n".join(json.dumps(r) for r in records[1:]) + "\n",
                   encoding="utf-8")
    logs = [*(LOGS_DIR / sample for sample in samples), log]
    db = tmp_path / "logs.duckdb"
    assert import_logs(db, logs, fmt).rejects == 0
    # RAGAS samples cite nothing
    assert_spark_import_gives(spark, db, logs, fmt, instants_in_json=False,
                              may_be_empty=lambda table: (fmt, table) == ("ragas", "log_citations"))


def assert_spark_import_gives(spark: Any, db: Path, logs: list[Path], fmt: str, instants_in_json: bool,
                              may_be_empty: Callable[[str], bool]) -> None:
    """Spark's import of ``logs`` (a fresh session's log tables) gives every log table of the DuckDB
    warehouse ``db`` row for row; JSON columns compared parsed, their timestamp texts as instants if asked."""
    from evalwh.spark.logs import LOG_TABLES
    from evalwh.spark.logs import import_logs as spark_import

    for table in LOG_TABLES:
        spark.catalog.dropTempView(table)
    batch = spark_import(spark, logs, fmt)
    con = duckdb.connect(str(db), read_only=True)
    assert batch["log_rejects"].count() == 0
    for table in LOG_TABLES:
        frame = batch[table]
        columns = [c for c in frame.columns if c != "log_batch_id"]
        expected = con.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
        actual = frame.select(*columns).collect()

        def parsed(record: Any, columns: list[str] = columns) -> tuple[Any, ...]:
            return tuple((instants(json.loads(v)) if instants_in_json else json.loads(v))
                         if c in ("raw", "metadata", "location") and isinstance(v, str) else v
                         for c, v in zip(columns, record, strict=True))

        assert rows_of([parsed(r) for r in actual]) == rows_of([parsed(r) for r in expected]), table
        assert expected or may_be_empty(table), table
        print(f"{fmt} {table:16} {len(expected):3} rows  equal")
    con.close()


PRODUCERS_DIR = LOGS_DIR / "producers"
# the producers' files (tests/logs/producers), each group one import: every format, and each way of writing
# it that the Spark import reads apart (ids in base64 in a pretty-printed document, spans and events, both
# span conventions, ids in metadata, tool results, every document source, Python-literal lists in CSV,
# metric columns in Parquet, a JSON array, several cases in one document)
PRODUCER_IMPORTS = [
    ("otlp", ["otel/otel_protobuf.json"]), ("otlp", ["otel/otel_events_spans.jsonl", "otel/otel_events_logs.jsonl"]),
    ("otlp", ["openinference/openinference_otlp_genai.jsonl"]), ("otlp", ["langchain/langchain_noid_otlp.jsonl"]),
    ("anthropic", ["anthropic/anthropic_mixed.jsonl"]), ("anthropic", ["anthropic/anthropic_sources.jsonl"]),
    ("ragas", ["ragas/ragas_to_csv.csv"]), ("ragas", ["ragas/ragas_evaluate.parquet"]),
    ("deepeval", ["deepeval/deepeval_goldens.json"]), ("deepeval", ["deepeval/deepeval_results.json"]),
]


@pytest.mark.parametrize("fmt,files", PRODUCER_IMPORTS, ids=lambda v: v if isinstance(v, str) else "+".join(v))
def test_producer_logs_on_spark_give_duckdbs_rows(spark: Any, tmp_path: Path, fmt: str, files: list[str]) -> None:
    """Every log the producers' own libraries wrote (test_log_producers.py) imports on Spark as on DuckDB."""

    logs = [PRODUCERS_DIR / name for name in files]
    db = tmp_path / "logs.duckdb"
    assert import_logs(db, logs, fmt).requests > 0
    assert_spark_import_gives(spark, db, logs, fmt, instants_in_json=True,
                              may_be_empty=lambda table: table == "log_citations")


def test_a_second_spark_import_of_the_same_log_adds_nothing(spark: Any) -> None:
    from evalwh.spark.logs import LOG_TABLES
    from evalwh.spark.logs import import_logs as spark_import

    for table in LOG_TABLES:
        spark.catalog.dropTempView(table)
    logs = [LOGS_DIR / "evalwh.jsonl"]
    first = spark_import(spark, logs, "evalwh")
    again = spark_import(spark, logs, "evalwh")  # the session holds every request now: nothing new
    assert first["log_requests"].count() > 0
    assert {table: again[table].count() for table in LOG_TABLES} == dict.fromkeys(LOG_TABLES, 0)
    assert spark.table("log_requests").count() == first["log_requests"].count()


def instants(value: Any) -> Any:
    """A JSON value with every timestamp text read as an instant: the two engines write a Parquet
    timestamp into JSON differently (DuckDB `2026-12-01 09:00:00+00`, Spark `2026-12-01T09:00:00.000Z`)."""
    if isinstance(value, dict):
        return {k: instants(v) for k, v in value.items()}
    if isinstance(value, list):
        return [instants(v) for v in value]
    if isinstance(value, str) and len(value) >= 19 and value[4] == "-" and value[10] in " T":
        try:
            return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return value


@pytest.mark.parametrize("fmt,sample", [("openinference", "openinference.jsonl"), ("ragas", "ragas.jsonl")])
def test_parquet_log_import_on_spark_gives_duckdbs_rows(spark: Any, tmp_path: Path, fmt: str, sample: str) -> None:
    from evalwh.spark.logs import LOG_TABLES
    from evalwh.spark.logs import import_logs as spark_import

    parquet = tmp_path / f"{fmt}.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM read_json('{LOGS_DIR / sample}', format='newline_delimited', "
                f"union_by_name=true)) TO '{parquet}' (FORMAT parquet)")
    con.close()
    db = tmp_path / "logs.duckdb"
    assert import_logs(db, [parquet], fmt).rejects == 0
    for table in LOG_TABLES:
        spark.catalog.dropTempView(table)
    batch = spark_import(spark, [parquet], fmt)
    con = duckdb.connect(str(db), read_only=True)
    for table in LOG_TABLES:
        frame = batch[table]
        columns = [c for c in frame.columns if c != "log_batch_id"]
        expected = con.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
        actual = [tuple(r) for r in frame.select(*columns).collect()]

        def parsed(record: tuple[Any, ...], columns: list[str] = columns) -> tuple[Any, ...]:
            return tuple(instants(json.loads(v)) if c in ("raw", "metadata") and isinstance(v, str) else v
                         for c, v in zip(columns, record, strict=True))

        assert rows_of([parsed(r) for r in actual]) == rows_of([parsed(r) for r in expected]), table
        assert expected or (fmt, table) == ("ragas", "log_citations"), table
        print(f"{fmt} parquet {table:16} {len(expected):3} rows  equal")
    con.close()


BAD_LINES = [
    {"request_id": "ok-1", "question": "Fine?", "ts": "2026-12-03T10:00:00Z", "refused": "no"},
    {"request_id": "", "question": "No id"},
    {"request_id": "t-1", "ts": "epoch"},
    {"request_id": "t-2", "ts": "2026-12-03 10:00", "refused": "maybe"},
    {"request_id": "t-3", "refused": " true"},  # DuckDB reads no spaces around a boolean, nor does the import
    {"request_id": "ok-1", "question": "Again"},
    [1, 2],
    {"request_id": "ok-2", "refused": "Y", "retrieved": [{"chunk_id": "k1"}],
     "cited": [{"chunk_id": "k1", "quote": "q"}]},
    {"request_id": "t-1", "ts": "noon", "refused": "maybe"},  # three problems: set aside once, for the first
]


def test_bad_requests_on_spark_are_refused_or_set_aside_as_duckdb_does(spark: Any, tmp_path: Path) -> None:
    from evalwh.errors import InputError
    from evalwh.spark.logs import LOG_TABLES
    from evalwh.spark.logs import import_logs as spark_import

    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in BAD_LINES) + "\n", encoding="utf-8")
    db = tmp_path / "logs.duckdb"
    with pytest.raises(InputError) as duck:
        import_logs(db, [log], "evalwh")
    with pytest.raises(InputError) as on_spark:
        spark_import(spark, [log], "evalwh")
    # a line that is no JSON object is reported before the requests' checks, by both
    first_bad = "bad.jsonl: line 7: not a JSON object"
    assert str(on_spark.value).split(" (")[0] == str(duck.value).split(" (")[0] == first_bad
    assert import_logs(db, [log], "evalwh", skip_bad=True).rejects == 7
    for table in LOG_TABLES:
        spark.catalog.dropTempView(table)
    batch = spark_import(spark, [log], "evalwh", skip_bad=True)
    con = duckdb.connect(str(db), read_only=True)
    rejects = con.execute("SELECT file, line, error FROM log_rejects").fetchall()
    assert sorted(rejects) == sorted(tuple(r) for r in batch["log_rejects"].select("file", "line", "error").collect())
    assert sorted(rejects) == [("bad.jsonl", 2, "missing request id"), ("bad.jsonl", 3, "timestamp is not ISO 8601"),
                               ("bad.jsonl", 4, "refused is not a boolean"),
                               ("bad.jsonl", 5, "refused is not a boolean"),
                               ("bad.jsonl", 6, "request id already used earlier in this import"),
                               ("bad.jsonl", 7, "not a JSON object"),
                               ("bad.jsonl", 9, "timestamp is not ISO 8601")]
    for table in LOG_TABLES:
        columns = [c for c in batch[table].columns if c not in ("log_batch_id", "raw")]
        expected = con.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
        assert rows_of(batch[table].select(*columns).collect()) == rows_of(expected), table
    assert con.execute("SELECT request_id, refused FROM log_requests ORDER BY 1").fetchall() == [
        ("ok-1", False), ("ok-2", True)]
    con.close()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sample=st.sampled_from(sorted(SAMPLE_FORMATS)), pick=st.integers(min_value=0), value=TEXT)
# a character beyond U+FFFF in a ragas sample's list: JSON writes it as an escaped surrogate pair
@example(sample="ragas.jsonl", pick=86, value="\U00010000")
def test_a_sample_log_with_one_text_replaced_imports_alike_on_spark(spark: Any, sample: str, pick: int,
                                                                   value: str) -> None:
    """Random text (control characters, a BOM, İ, ß, characters beyond U+FFFF) anywhere in a sample log's
    record: where DuckDB imports it, Spark gives the same rows."""
    from evalwh.errors import InputError
    from evalwh.spark.logs import LOG_TABLES
    from evalwh.spark.logs import import_logs as spark_import

    with tempfile.TemporaryDirectory() as scratch:
        log, db = write_mutated_sample(Path(scratch), sample, pick, value), Path(scratch) / "logs.duckdb"
        try:
            imported = import_logs(db, [log], SAMPLE_FORMATS[sample])
        except InputError:
            return  # refused by DuckDB's checks, which Spark does not run
        if imported.log_batch_id is None:
            return
        for table in LOG_TABLES:
            spark.catalog.dropTempView(table)
        batch = spark_import(spark, [log], SAMPLE_FORMATS[sample])
        con = duckdb.connect(str(db), read_only=True)
        for table in LOG_TABLES:
            columns = [c for c in batch[table].columns if c != "log_batch_id"]

            def parsed(record: tuple[Any, ...], columns: list[str] = columns) -> tuple[Any, ...]:
                return tuple(json.loads(v) if c in ("raw", "metadata", "location") and isinstance(v, str) else v
                             for c, v in zip(columns, record, strict=True))

            expected = con.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            actual = [tuple(r) for r in batch[table].select(*columns).collect()]
            assert rows_of([parsed(r) for r in actual]) == rows_of([parsed(r) for r in expected]), table
        con.close()
