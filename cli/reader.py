"""Strict parsing of a reader's two-line output, run once per response at load time.

After trimming, an output must be exactly ``Answer: <text>`` then
``Sources: <ids>``; anything else is a parse failure and the output is kept as
it was. The views decide the action (answer, refuse, flag_premise) from the
parsed answer and the run's markers.
"""

from __future__ import annotations

import re

import duckdb
from duckdb.func import FunctionNullHandling
from duckdb.sqltypes import BOOLEAN, INTEGER, VARCHAR
from evalwh.textnorm import numbers

MARKER = re.compile(r"\[(\d+)\]")
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")
ANSWER_PREFIX = "Answer:"
SOURCES_PREFIX = "Sources:"
ID_SEPARATOR = re.compile(r"\s*,\s*")

PARSED_TYPE = duckdb.struct_type({"parse_ok": BOOLEAN, "answer": VARCHAR, "sources": duckdb.list_type(VARCHAR)})
SENTENCE_TYPE = duckdb.struct_type({
    "sentence": VARCHAR, "markers": duckdb.list_type(INTEGER), "word_count": INTEGER, "numbers": duckdb.list_type(VARCHAR),
})


def parse_output(output: str) -> dict[str, object]:
    """``{"parse_ok", "answer", "sources"}``; a failure has parse_ok False, answer None and no sources."""
    failure: dict[str, object] = {"parse_ok": False, "answer": None, "sources": []}
    lines = output.strip().splitlines()
    if len(lines) != 2 or not lines[0].startswith(ANSWER_PREFIX) or not lines[1].startswith(SOURCES_PREFIX):
        return failure
    answer = lines[0][len(ANSWER_PREFIX):].strip()
    listed = lines[1][len(SOURCES_PREFIX):].strip()
    if listed == "none":
        sources: list[str] = []
    else:
        sources = ID_SEPARATOR.split(listed)
        if not listed or any(not s for s in sources):
            return failure
    return {"parse_ok": True, "answer": answer, "sources": sources}


def answer_numbers(answer: str | None, sources: list[str] | None) -> list[str]:
    """Numbers of an answer after the cited ids are removed from its text (so ``handbook-1`` adds no 1)."""
    text = answer or ""
    for source in sorted(sources or [], key=len, reverse=True):
        text = text.replace(source, " ")
    return numbers(text)


def bracket_markers(text: str) -> list[int]:
    """The passage numbers of the ``[n]`` markers in ``text``, in order."""
    return [int(n) for n in MARKER.findall(text)]


def bracket_numbers(text: str) -> list[str]:
    """Numbers of bracket-cited prose, the ``[n]`` markers removed first (so ``[7]`` adds no 7)."""
    return numbers(MARKER.sub(" ", text))


def bracket_sentences(text: str) -> list[dict[str, object]]:
    """Sentences of an answer, split at ``.``, ``!`` or ``?`` followed by white space, with their markers."""
    return [
        {"sentence": s, "markers": bracket_markers(s), "word_count": len(s.split()), "numbers": bracket_numbers(s)}
        for s in SENTENCE_SPLIT.split(text.strip())
        if s
    ]


def register_reader_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register the reader parsers for the loader."""
    con.create_function("bracket_markers", bracket_markers, [VARCHAR], duckdb.list_type(INTEGER),
                        null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("bracket_numbers", bracket_numbers, [VARCHAR], duckdb.list_type(VARCHAR),
                        null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("bracket_sentences", bracket_sentences, [VARCHAR], duckdb.list_type(SENTENCE_TYPE),
                        null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("parse_output", parse_output, [VARCHAR], PARSED_TYPE, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("answer_numbers", answer_numbers, [VARCHAR, duckdb.list_type(VARCHAR)],
                        duckdb.list_type(VARCHAR), null_handling=FunctionNullHandling.SPECIAL)
