"""LangChain runs of the scenario traced by openinference-instrumentation-langchain, the most common way
spans reach Phoenix, written by the OTLP JSON file exporter.

The chain is LangChain's own: a retriever returning the scenario's chunks, a prompt, a fake chat
model answering the scenario's answers, a string parser. The instrumentor writes each document's
text and its metadata (as JSON); a LangChain ``Document.id`` is not written, so the chunk id
travels in the metadata:

- ``langchain_otlp.jsonl``: every document's metadata holds its ``chunk_id`` (and its ``score``);
- ``langchain_noid_otlp.jsonl``: the first request's cited document has no id anywhere (its
  metadata names only a ``source`` file), so its citation cannot be resolved to a chunk.

LangChain times its runs from the wall clock; the generator runs them on the scenario's clock
(the ``datetime`` of ``langchain_core.tracers.core`` and ``.langchain``), so a regenerated file is
the same.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import langchain_core.tracers.core as tracer_core
import langchain_core.tracers.langchain as langchain_tracer
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnablePassthrough
from openinference.instrumentation import using_session
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from tests.logs.producers.gen_otel import RESOURCE, ScenarioIds
from tests.logs.producers.scenario import REQUESTS, Request, trace_id


class ScenarioRetriever(BaseRetriever):
    """Returns each request's documents, ids in the metadata (or, with ``hide_first``, the first
    request's first document with none)."""

    hide_first: bool = False

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        request = next(r for r in REQUESTS if r.question == query)
        documents = []
        for rank, doc in enumerate(request.docs, 1):
            metadata: dict[str, Any] = {"chunk_id": doc.chunk_id, "score": doc.score}
            if self.hide_first and request is REQUESTS[0] and rank == 1:
                metadata = {"source": "handbook.pdf"}
            documents.append(Document(page_content=doc.text, metadata=metadata, id=doc.chunk_id))
        return documents


class Clock:
    """``datetime`` for LangChain's tracer: ``now()`` is the current request's time, a millisecond more
    on every call."""

    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    calls = 0

    @classmethod
    def now(cls, tz: Any = None) -> dt.datetime:
        cls.calls += 1
        return cls.start + dt.timedelta(milliseconds=cls.calls)


@contextmanager
def scenario_clock() -> Iterator[type[Clock]]:
    modules = (tracer_core, langchain_tracer)
    real = [module.datetime for module in modules]
    for module in modules:
        module.datetime = Clock
    try:
        yield Clock
    finally:
        for module, original in zip(modules, real, strict=True):
            module.datetime = original


def format_docs(documents: list[Document]) -> str:
    return " ".join(f"[{n}] {d.page_content}" for n, d in enumerate(documents, 1))


def write(path: Path, hide_first: bool) -> None:
    ids = ScenarioIds()
    provider = TracerProvider(resource=RESOURCE, id_generator=ids)
    instrumentor = LangChainInstrumentor()
    with path.open("w", encoding="utf-8") as stream:
        provider.add_span_processor(BatchSpanProcessor(FileSpanExporter(stream=stream)))
        instrumentor.instrument(tracer_provider=provider)
        try:
            model = FakeListChatModel(responses=[r.answer for r in REQUESTS])
            prompt = ChatPromptTemplate.from_messages([("system", "Answer from these documents: {context}"),
                                                       ("human", "{question}")])
            chain = ({"context": ScenarioRetriever(hide_first=hide_first) | format_docs,
                      "question": RunnablePassthrough()} | prompt | model | StrOutputParser())
            with scenario_clock() as clock:
                for request in REQUESTS:
                    ask(chain, ids, clock, request)
        finally:
            instrumentor.uninstrument()
        provider.shutdown()


def ask(chain: Any, ids: ScenarioIds, clock: type[Clock], request: Request) -> None:
    ids.trace = trace_id(request)
    clock.start, clock.calls = request.ts, -1  # the root run starts at the request's time
    with using_session(request.session):
        answer = chain.invoke(request.question)
    assert answer == request.answer, answer


def generate(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "langchain_otlp.jsonl", folder / "langchain_noid_otlp.jsonl"]
    write(written[0], hide_first=False)
    write(written[1], hide_first=True)
    return written
