"""OpenTelemetry GenAI traces of the scenario, written by the OpenTelemetry SDK and its exporters.

Each request is a trace of three spans following the GenAI semantic conventions: a workflow root,
a ``retrieval`` span (``gen_ai.retrieval.query.text``, ``gen_ai.retrieval.documents``) and a ``chat``
span (models, finish reasons, ``gen_ai.conversation.id``, and the input and output messages).
Written five ways:

- ``otel_batch.jsonl``: the OTLP JSON file exporter behind a batch processor (one line, every span),
  messages and documents as structured attribute values;
- ``otel_simple.jsonl``: the same exporter behind a simple processor (a line a span, children before
  their parents, as they end), messages as JSON strings (the conventions' fallback);
- ``otel_protobuf.json``: the protobuf encoder's export request printed by protobuf's MessageToJson
  (ids in base64, enums by name, one pretty-printed document);
- ``otel_split_children.jsonl`` and ``otel_split_roots.jsonl``: one trace's spans over two files;
- ``otel_events_spans.jsonl`` and ``otel_events_logs.jsonl``: spans without content, and the
  ``gen_ai.client.inference.operation.details`` events carrying it, from the SDK's log exporter.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToJson
from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as genai
from tests.logs.producers.scenario import MODEL, REQUESTS, Request, nanos, trace_id

RESOURCE = Resource({"service.name": "rag-service", "telemetry.sdk.language": "python"})
PROVIDER = "stub"
DATA_SOURCE = "chapter3"


class ScenarioIds(IdGenerator):
    """Trace ids from the scenario (so a regenerated file is the same), span ids counted."""

    def __init__(self) -> None:
        self.trace = 0
        self.span = 0

    def generate_trace_id(self) -> int:
        return self.trace

    def generate_span_id(self) -> int:
        self.span += 1
        return 0xABC0000000000000 + self.span


class Collect(SpanExporter):
    """Keeps the finished spans, for the protobuf encoder and for files split by hand."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS


def messages(request: Request, as_json: bool) -> dict[str, Any]:
    """The chat span's content attributes: system instructions naming the documents, the question,
    the answer; structured values, or JSON strings."""
    context = " ".join(f"[{n}] {doc.text}" for n, doc in enumerate(request.docs, 1))
    values: dict[str, Any] = {
        genai.GEN_AI_SYSTEM_INSTRUCTIONS: [{"type": "text", "content": f"Answer from these documents: {context}"}],
        genai.GEN_AI_INPUT_MESSAGES: [{"role": "user", "parts": [{"type": "text", "content": request.question}]}],
        genai.GEN_AI_OUTPUT_MESSAGES: [{"role": "assistant", "parts": [{"type": "text", "content": request.answer}],
                                        "finish_reason": request.finish_reason}],
    }
    return {key: json.dumps(value) for key, value in values.items()} if as_json else values


def documents(request: Request, as_json: bool) -> Any:
    value = [{"id": doc.chunk_id, "score": doc.score} for doc in request.docs]
    return json.dumps(value) if as_json else value


def trace_request(provider: TracerProvider, ids: ScenarioIds, request: Request, *, as_json: bool = False,
                  content: bool = True, on_chat: Callable[[Request, Any], None] | None = None) -> None:
    """The request's three spans, timed from the scenario's clock (a millisecond a step)."""
    tracer = provider.get_tracer("rag-service", "1.0.0")
    ids.trace = trace_id(request)
    start = nanos(request.ts)
    root = tracer.start_span(f"{genai.GenAiOperationNameValues.INVOKE_WORKFLOW.value} rag", start_time=start,
                             attributes={genai.GEN_AI_OPERATION_NAME: "invoke_workflow",
                                         genai.GEN_AI_CONVERSATION_ID: request.session})
    with trace.use_span(root, end_on_exit=False):
        retrieval = tracer.start_span(f"retrieval {DATA_SOURCE}", kind=trace.SpanKind.CLIENT, start_time=start + 1_000_000,
                                      attributes={genai.GEN_AI_OPERATION_NAME: "retrieval",
                                                  genai.GEN_AI_DATA_SOURCE_ID: DATA_SOURCE})
        retrieval.set_attribute(genai.GEN_AI_RETRIEVAL_QUERY_TEXT, request.question)
        retrieval.set_attribute(genai.GEN_AI_RETRIEVAL_DOCUMENTS, documents(request, as_json))
        retrieval.end(end_time=start + 2_000_000)
        chat = tracer.start_span(f"chat {MODEL}", kind=trace.SpanKind.CLIENT, start_time=start + 3_000_000,
                                 attributes={genai.GEN_AI_OPERATION_NAME: "chat", genai.GEN_AI_PROVIDER_NAME: PROVIDER,
                                             genai.GEN_AI_REQUEST_MODEL: MODEL})
        chat.set_attribute(genai.GEN_AI_RESPONSE_MODEL, MODEL)
        chat.set_attribute(genai.GEN_AI_RESPONSE_FINISH_REASONS, [request.finish_reason])
        chat.set_attribute(genai.GEN_AI_CONVERSATION_ID, request.session)
        if content:
            for key, value in messages(request, as_json).items():
                chat.set_attribute(key, value)
        if on_chat is not None:
            on_chat(request, chat)
        chat.end(end_time=start + 4_000_000)
    root.end(end_time=start + 5_000_000)


def write_spans(path: Path, processor: type[BatchSpanProcessor] | type[SimpleSpanProcessor], *, as_json: bool) -> None:
    ids = ScenarioIds()
    provider = TracerProvider(resource=RESOURCE, id_generator=ids)
    with path.open("w", encoding="utf-8") as stream:
        provider.add_span_processor(processor(FileSpanExporter(stream=stream)))
        for request in REQUESTS:
            trace_request(provider, ids, request, as_json=as_json)
        provider.shutdown()


def collected(**options: Any) -> list[ReadableSpan]:
    ids, sink = ScenarioIds(), Collect()
    provider = TracerProvider(resource=RESOURCE, id_generator=ids)
    provider.add_span_processor(SimpleSpanProcessor(sink))
    for request in REQUESTS:
        trace_request(provider, ids, request, **options)
    provider.shutdown()
    return sink.spans


def write_protobuf(path: Path) -> None:
    path.write_text(MessageToJson(encode_spans(collected())) + "\n", encoding="utf-8")


def write_split(children: Path, roots: Path) -> None:
    """The first request's spans over two files: its retrieval and chat spans in one, its root in the
    other (as two exporters of one service, or a file rotated mid-trace, write them)."""
    spans = [s for s in collected() if s.context.trace_id == trace_id(REQUESTS[0])]
    for path, part in ((children, [s for s in spans if s.parent is not None]), (roots, [s for s in spans if s.parent is None])):
        with path.open("w", encoding="utf-8") as stream:
            FileSpanExporter(stream=stream).export(part)


def write_events(spans_path: Path, logs_path: Path) -> None:
    """Spans without content, and the content as inference-details events in the trace's context."""
    log_stream = io.StringIO()
    loggers = LoggerProvider(resource=RESOURCE)
    loggers.add_log_record_processor(SimpleLogRecordProcessor(FileLogExporter(stream=log_stream)))
    logger = loggers.get_logger("rag-service", "1.0.0")

    def emit(request: Request, chat: Any) -> None:
        attributes = {genai.GEN_AI_OPERATION_NAME: "chat", genai.GEN_AI_PROVIDER_NAME: PROVIDER,
                      genai.GEN_AI_REQUEST_MODEL: MODEL, genai.GEN_AI_RESPONSE_MODEL: MODEL,
                      genai.GEN_AI_RESPONSE_FINISH_REASONS: [request.finish_reason],
                      genai.GEN_AI_CONVERSATION_ID: request.session, **messages(request, as_json=False)}
        logger.emit(timestamp=nanos(request.ts) + 4_000_000, observed_timestamp=nanos(request.ts) + 4_000_000,
                    context=trace.set_span_in_context(chat),
                    severity_number=SeverityNumber.INFO, event_name="gen_ai.client.inference.operation.details",
                    attributes=attributes)

    ids = ScenarioIds()
    provider = TracerProvider(resource=RESOURCE, id_generator=ids)
    with spans_path.open("w", encoding="utf-8") as stream:
        provider.add_span_processor(BatchSpanProcessor(FileSpanExporter(stream=stream)))
        for request in REQUESTS:
            trace_request(provider, ids, request, content=False, on_chat=emit)
        provider.shutdown()
    loggers.shutdown()
    logs_path.write_text(log_stream.getvalue(), encoding="utf-8")


def generate(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / name for name in ("otel_batch.jsonl", "otel_simple.jsonl", "otel_protobuf.json",
                                          "otel_split_children.jsonl", "otel_split_roots.jsonl",
                                          "otel_events_spans.jsonl", "otel_events_logs.jsonl")]
    write_spans(written[0], BatchSpanProcessor, as_json=False)
    write_spans(written[1], SimpleSpanProcessor, as_json=True)
    write_protobuf(written[2])
    write_split(written[3], written[4])
    write_events(written[5], written[6])
    return written
