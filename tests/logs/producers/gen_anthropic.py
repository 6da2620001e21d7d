"""Anthropic Messages API exchanges of the scenario, made with the anthropic SDK over a mock transport.

``client.messages.create`` runs for real (the SDK builds and sends the request, parses the response
into its ``Message`` type); only the HTTP transport is a function, which answers as the scenario
says, citing as the API cites. Each exchange is logged as an application logs it:
``{"request_id": message._request_id, "timestamp": ..., "request": <the create() arguments>,
"response": message.model_dump(mode="json")}``:

- ``anthropic_documents.jsonl``: the passages as plain-text documents (title = chunk id), cited by
  ``char_location``;
- ``anthropic_search_results.jsonl``: the passages as top-level search results (source = chunk id),
  cited by ``search_result_location``;
- ``anthropic_tool_results.jsonl``: a search tool's ``tool_result`` returns the passages as search
  results; the logged exchange is the one that answers (question, tool use, tool result);
- ``anthropic_mixed.jsonl``: the third request's passages split between a top-level search result
  and a tool result, so ``search_result_index`` counts across both, in the order they appear;
- ``anthropic_sources.jsonl``: documents of each source type: a base64 PDF (``page_location``), a
  custom-content document (``content_block_location``), a URL PDF and plain text;
- ``anthropic_string_response.jsonl``: the first variant with the response logged as
  ``message.model_dump_json()``, a string.

The refusing request ends with ``stop_reason: "refusal"``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2 as httpx  # the transport library of anthropic 2.x
from tests.logs.producers.scenario import MODEL, REQUESTS, Doc, Request, by_key

Shape = Callable[[Request], tuple[list[dict[str, Any]], list[dict[str, Any]]]]
# a one-page PDF: only its bytes travel (as base64); nothing reads its text
PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Count 1/Kids[3 0 R]>>endobj "
       b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")


def search_result(doc: Doc) -> dict[str, Any]:
    return {"type": "search_result", "source": doc.chunk_id, "title": f"Passage {doc.chunk_id}",
            "content": [{"type": "text", "text": doc.text}], "citations": {"enabled": True}}


def text_document(doc: Doc) -> dict[str, Any]:
    return {"type": "document", "title": doc.chunk_id, "citations": {"enabled": True},
            "source": {"type": "text", "media_type": "text/plain", "data": doc.text}}


def documents(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(messages, citations of the answer): the passages as documents in the question's message."""
    content = [text_document(doc) for doc in request.docs] + [{"type": "text", "text": request.question}]
    citations = []
    for cite in request.cites:
        doc = request.docs[cite.rank - 1]
        start = max(doc.text.find(cite.quote), 0)
        citations.append({"type": "char_location", "cited_text": cite.quote, "document_index": cite.rank - 1,
                          "document_title": doc.chunk_id, "start_char_index": start,
                          "end_char_index": start + len(cite.quote)})
    return [{"role": "user", "content": content}], citations


def search_location(request: Request, rank: int, quote: str, index: int) -> dict[str, Any]:
    doc = request.docs[rank - 1]
    return {"type": "search_result_location", "cited_text": quote, "search_result_index": index,
            "source": doc.chunk_id, "title": f"Passage {doc.chunk_id}", "start_block_index": 0, "end_block_index": 1}


def search_results(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    content = [search_result(doc) for doc in request.docs] + [{"type": "text", "text": request.question}]
    return ([{"role": "user", "content": content}],
            [search_location(request, c.rank, c.quote, c.rank - 1) for c in request.cites])


def tool_turns(request: Request, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The assistant's search tool call and the user's tool result holding ``results``."""
    call = f"toolu_scenario_{request.number:02d}"
    return [{"role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "search",
                                               "input": {"query": request.question}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": results}]}]


def tool_results(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    messages = [{"role": "user", "content": request.question}, *tool_turns(request, [search_result(d) for d in request.docs])]
    return messages, [search_location(request, c.rank, c.quote, c.rank - 1) for c in request.cites]


def mixed(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The second passage as a top-level search result (index 0), the first in a tool result (index 1):
    the answer cites the tool result's passage, then the top-level one."""
    first, second = request.docs[0], request.docs[1]
    messages = [{"role": "user", "content": [search_result(second), {"type": "text", "text": request.question}]},
                *tool_turns(request, [search_result(first)])]
    quote = request.cites[0].quote
    return messages, [search_location(request, 1, quote, 1), search_location(request, 2, second.text, 0)]


def sources(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each passage in a document of another source type, in scenario order: base64 PDF, custom
    content (one block a sentence), URL PDF, plain text; each cited once by its location type."""
    content: list[dict[str, Any]] = []
    citations: list[dict[str, Any]] = []
    for index, doc in enumerate(request.docs):
        kind = ("pdf", "content", "url", "text")[(request.number + index - 1) % 4]
        if kind == "pdf":
            content.append({"type": "document", "title": doc.chunk_id, "citations": {"enabled": True},
                            "source": {"type": "base64", "media_type": "application/pdf",
                                       "data": base64.b64encode(PDF).decode()}})
            citations.append({"type": "page_location", "cited_text": doc.text, "document_index": index,
                              "document_title": doc.chunk_id, "start_page_number": 1, "end_page_number": 2})
        elif kind == "content":
            blocks = [{"type": "text", "text": part + "."} for part in doc.text.split(". ") if part]
            content.append({"type": "document", "title": doc.chunk_id, "citations": {"enabled": True},
                            "source": {"type": "content", "content": blocks}})
            citations.append({"type": "content_block_location", "cited_text": blocks[0]["text"],
                              "document_index": index, "document_title": doc.chunk_id,
                              "start_block_index": 0, "end_block_index": 1})
        elif kind == "url":
            content.append({"type": "document", "title": doc.chunk_id, "citations": {"enabled": True},
                            "source": {"type": "url", "url": f"https://docs.example/{doc.chunk_id}.pdf"}})
            citations.append({"type": "page_location", "cited_text": doc.text, "document_index": index,
                              "document_title": doc.chunk_id, "start_page_number": 1, "end_page_number": 2})
        else:
            content.append(text_document(doc))
            citations.append({"type": "char_location", "cited_text": doc.text, "document_index": index,
                              "document_title": doc.chunk_id, "start_char_index": 0, "end_char_index": len(doc.text)})
    content.append({"type": "text", "text": request.question})
    return [{"role": "user", "content": content}], citations


def answer(request: Request, citations: list[dict[str, Any]]) -> dict[str, Any]:
    """The Messages API response: the answer (without [n] markers) carrying the citations."""
    if request.refused:
        content: list[dict[str, Any]] = [{"type": "text", "text": request.answer}]
    else:
        content = [{"type": "text", "text": request.plain_answer.rstrip("."), "citations": citations},
                   {"type": "text", "text": "."}]
    return {"id": f"msg_scenario_{request.number:02d}", "type": "message", "role": "assistant", "model": MODEL,
            "content": content, "stop_reason": "refusal" if request.refused else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 100 + request.number, "output_tokens": 20 + request.number}}


def exchanges(shape: Shape, requests: tuple[Request, ...], as_string: bool = False) -> list[dict[str, Any]]:
    current: dict[str, Any] = {}  # the request being answered, and its reply

    def transport(http_request: httpx.Request) -> httpx.Response:
        assert json.loads(http_request.content)["messages"] == current["messages"]
        return httpx.Response(200, json=current["reply"],
                              headers={"request-id": f"req_scenario_{current['number']:02d}"})

    client = anthropic.Anthropic(api_key="sk-ant-test", base_url="https://api.anthropic.test", max_retries=0,
                                 http_client=httpx.Client(transport=httpx.MockTransport(transport)))
    logged = []
    for request in requests:
        messages, citations = shape(request)
        current.update(messages=messages, reply=answer(request, citations), number=request.number)
        params = {"model": MODEL, "max_tokens": 512, "metadata": {"user_id": request.session}, "messages": messages}
        message = client.messages.create(**params)
        response = message.model_dump_json() if as_string else message.model_dump(mode="json")
        logged.append({"request_id": message._request_id, "timestamp": request.ts.isoformat(), "request": params,
                       "response": response})
    return logged


def write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


def generate(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[dict[str, Any]]] = {
        "anthropic_documents.jsonl": exchanges(documents, REQUESTS),
        "anthropic_search_results.jsonl": exchanges(search_results, REQUESTS),
        "anthropic_tool_results.jsonl": exchanges(tool_results, REQUESTS),
        "anthropic_mixed.jsonl": exchanges(mixed, (by_key("r3"),)),
        "anthropic_sources.jsonl": exchanges(sources, REQUESTS[:3]),
        "anthropic_string_response.jsonl": exchanges(documents, REQUESTS, as_string=True),
    }
    for name, records in files.items():
        write(folder / name, records)
    return [folder / name for name in files]
