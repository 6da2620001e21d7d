"""OpenInference spans of the scenario inside OTLP files, as they leave an app before Phoenix.

openinference-instrumentation's OITracer over the OpenTelemetry SDK writes each request as a CHAIN
root (``input.value``, ``output.value``, ``session.id``), a RETRIEVER span
(``retrieval.documents.N.document.*``) and an LLM span (``llm.model_name``, messages, output), and
the OTLP JSON file exporter writes them:

- ``openinference_otlp.jsonl``: OpenInference's attributes alone;
- ``openinference_otlp_genai.jsonl``: with ``enable_genai_semconv``, which adds the GenAI
  conventions' attributes beside them.
"""

from __future__ import annotations

from pathlib import Path

from openinference.instrumentation import (
    OITracer,
    TraceConfig,
    get_llm_attributes,
    get_retriever_attributes,
    using_session,
)
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from tests.logs.producers.gen_otel import RESOURCE, ScenarioIds
from tests.logs.producers.scenario import MODEL, REQUESTS, Request, nanos, trace_id


def trace_request(tracer: OITracer, ids: ScenarioIds, request: Request) -> None:
    ids.trace = trace_id(request)
    start = nanos(request.ts)
    with using_session(request.session):
        with tracer.start_as_current_span("rag", openinference_span_kind="chain", start_time=start,
                                          end_on_exit=False) as root:
            root.set_input(request.question)
            with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever",
                                              start_time=start + 1_000_000, end_on_exit=False) as retriever:
                retriever.set_input(request.question)
                retriever.set_attributes(get_retriever_attributes(documents=[
                    {"id": doc.chunk_id, "score": doc.score, "content": doc.text} for doc in request.docs]))
                retriever.end(end_time=start + 2_000_000)
            with tracer.start_as_current_span("llm", openinference_span_kind="llm", start_time=start + 3_000_000,
                                              end_on_exit=False) as llm:
                context = " ".join(f"[{n}] {doc.text}" for n, doc in enumerate(request.docs, 1))
                llm.set_attributes(get_llm_attributes(
                    model_name=MODEL,
                    input_messages=[{"role": "system", "content": f"Answer from these documents: {context}"},
                                    {"role": "user", "content": request.question}],
                    output_messages=[{"role": "assistant", "content": request.answer}]))
                llm.set_input(request.question)
                llm.set_output(request.answer)
                llm.end(end_time=start + 4_000_000)
            root.set_output(request.answer)
            root.end(end_time=start + 5_000_000)


def write(path: Path, genai: bool) -> None:
    ids = ScenarioIds()
    provider = TracerProvider(resource=RESOURCE, id_generator=ids)
    tracer = OITracer(provider.get_tracer("rag-service", "1.0.0"), config=TraceConfig(enable_genai_semconv=genai))
    with path.open("w", encoding="utf-8") as stream:
        provider.add_span_processor(BatchSpanProcessor(FileSpanExporter(stream=stream)))
        for request in REQUESTS:
            trace_request(tracer, ids, request)
        provider.shutdown()


def generate(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "openinference_otlp.jsonl", folder / "openinference_otlp_genai.jsonl"]
    write(written[0], genai=False)
    write(written[1], genai=True)
    return written
