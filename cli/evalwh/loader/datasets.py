"""An evaluation dataset file (a RAGAS EvaluationDataset export, DeepEval goldens or test results) loaded
as a run.

The file is read as its log format reads it (every writer RAGAS and DeepEval have; the same checks),
then turned into a run's tables and loaded by ``evalwh.loader.frames.load_frames``, so the run gets
every validation and the all-or-nothing write of a run folder:

- chunks: each retrieved context (and each reference context) with its id; a context without one
  gets ``c-`` and the first 12 hex digits of its text's MD5. One id with two texts is an error.
- questions: one per sample, its id the sample's own (a RAGAS ``id``) or ``q-`` and the first 12 hex
  digits of the question's MD5 (the same question has the same id in every run); ``expected`` is
  ``answer`` (the formats record no expected behaviour); ``gold`` the reference answer;
  ``gold_chunk_id`` the first reference context id.
- retrievals: the retrieved contexts in order.
- responses: the response, whose ``[n]`` markers name the n-th retrieved context: the ``bracket``
  reader format.

An error in a derived table names the file and the line (or row) of the sample it came from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalwh.errors import InputError, UsageError
from evalwh.invocation import QUIET, Invocation
from evalwh.loader.frames import load_frames
from evalwh.loader.load import LoadResult
from evalwh.location import Location
from evalwh.logs.formats import preludes
from evalwh.logs.importing import _check_records, choose_format, parse_id_keys, register_log_functions
from evalwh.logs.read import file_labels, read_raw
from evalwh.text.textnorm import register_udfs
from evalwh.warehouse.connection import new_connection

DATASET_FORMATS = ("ragas", "deepeval")
# each format's sample fields, from its prelude's table
SAMPLE_SQL = {
    "ragas": "SELECT line, given_id, user_input, reference, response, contexts, context_ids, reference_contexts, "
             "reference_context_ids FROM ragas_samples ORDER BY line",
    "deepeval": "SELECT line, NULL AS given_id, input, expected_output, actual_output, retrieval_context, "
                "json_transform(metadata, '{\"retrieval_context_ids\": [\"VARCHAR\"]}').retrieval_context_ids, "
                "NULL, NULL FROM deepeval_cases ORDER BY line, case_no",
}


@dataclass(frozen=True)
class Sample:
    """One sample of an evaluation dataset, as its format reads it."""

    line: int
    given_id: str | None
    question: str | None
    reference: str | None
    response: str | None
    contexts: list[str]
    context_ids: list[str | None]
    reference_contexts: list[str]
    reference_context_ids: list[str | None]


def _digest(text: str, prefix: str) -> str:
    return prefix + hashlib.md5(text.encode("utf-8")).hexdigest()[:12]


def read_samples(path: Path, fmt: str | None = None) -> tuple[str, str, str, list[Sample]]:
    """(format, the file's label, its unit, samples) of an evaluation dataset file."""
    con = new_connection()
    try:
        register_udfs(con)
        register_log_functions(con, parse_id_keys(None))
        (label,) = file_labels([path])
        files = read_raw(con, [path], [label])
        found = choose_format(con, files, fmt)
        if found not in DATASET_FORMATS:
            raise UsageError(f"{label} is {found} logs, not an evaluation dataset: load reads RAGAS and DeepEval "
                             "dataset files (import logs with `evalwh logs import`)")
        _check_records(con, found, False, files)
        for sql, table in preludes(found):
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {sql}")
        samples = [Sample(line, given, question, reference, response, contexts or [], ids or [], refs or [],
                          ref_ids or [])
                   for line, given, question, reference, response, contexts, ids, refs, ref_ids
                   in con.execute(SAMPLE_SQL[found]).fetchall()]
        return found, label, files[label].unit, samples
    finally:
        con.close()


def dataset_tables(label: str, unit: str, samples: Sequence[Sample]) -> tuple[dict[str, list[dict[str, Any]]], list[int]]:
    """The run's tables from the samples, and the sample line each question row came from."""
    chunks: dict[str, tuple[str, int]] = {}  # id -> (text, line first seen)
    questions: list[dict[str, Any]] = []
    retrievals: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    lines: list[int] = []

    def chunk(text: str, given: str | None, line: int, column: str) -> str:
        chunk_id = given if given is not None else _digest(text, "c-")
        seen = chunks.get(chunk_id)
        if seen is not None and seen[0] != text:
            raise InputError(label, f"chunk id {chunk_id!r} has another text on {unit} {seen[1]}", row=line,
                             column=column)
        chunks.setdefault(chunk_id, (text, line))
        return chunk_id

    for s in samples:
        if s.question is None:
            raise InputError(label, "a sample without a question", row=s.line, column="user_input")
        question_id = s.given_id if s.given_id is not None else _digest(s.question, "q-")
        gold_ids = [chunk(text, given, s.line, "reference_contexts")
                    for text, given in zip(s.reference_contexts, _padded(s.reference_context_ids, s.reference_contexts),
                                           strict=True)]
        gold_chunk = next((c for c in (s.reference_context_ids or []) if c is not None), None) or \
            (gold_ids[0] if gold_ids else None)
        questions.append({"question_id": question_id, "question": s.question, "expected": "answer",
                          "gold": s.reference, "gold_chunk_id": gold_chunk})
        lines.append(s.line)
        for rank, (text, given) in enumerate(zip(s.contexts, _padded(s.context_ids, s.contexts), strict=True), 1):
            retrievals.append({"question_id": question_id, "rank": rank, "score": "",  # the formats give none
                               "chunk_id": chunk(text, given, s.line, "retrieved_contexts")})
        if s.response is not None:
            responses.append({"question_id": question_id, "output": s.response})
    tables: dict[str, list[dict[str, Any]]] = {
        "chunks": [{"chunk_id": chunk_id, "text": text} for chunk_id, (text, _) in chunks.items()],
        "questions": questions,
    }
    if retrievals:
        tables["retrievals"] = retrievals
    if responses:
        tables["responses"] = responses
    return tables, lines


def _padded(ids: Sequence[str | None], items: Sequence[str]) -> list[str | None]:
    """``ids`` as long as ``items`` (an id list may be shorter, or absent)."""
    return [ids[i] if i < len(ids) else None for i in range(len(items))]


def load_dataset_file(
    db: Location, path: Path, *, run: str | None = None, fmt: str | None = None, label: str | None = None,
    replace: bool = False, thresholds: Sequence[int] = (1, 2, 3, 4, 5), overrides: dict[str, Any] | None = None,
    metrics: bool = True, invocation: Invocation = QUIET,
) -> LoadResult:
    """Load an evaluation dataset file as run ``run`` (default: the file's name without its suffixes)."""
    if not path.is_file():
        raise InputError(str(path), "no such file")
    found, name, unit, samples = read_samples(path, fmt)
    tables, lines = dataset_tables(name, unit, samples)
    run_id = run if run is not None else path.name.split(".")[0]
    settings = {**(overrides or {}), "format": "bracket"}
    try:
        return load_frames(db, tables, run=run_id, label=label, replace=replace, thresholds=thresholds,
                           overrides=settings, metrics=metrics, invocation=invocation)
    except InputError as exc:
        if exc.file == "table questions" and exc.row is not None:
            raise InputError(name, exc.detail, row=lines[exc.row - 1], column=exc.column) from None
        if exc.file.startswith("table "):
            raise InputError(name, f"{exc}".removeprefix("table "), row=None) from None
        raise
