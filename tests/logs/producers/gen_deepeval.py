"""The scenario as DeepEval goldens and DeepEval test results, written by DeepEval itself.

A golden holds the question (``input``), the answer (``actual_output``, with its ``[n]`` markers),
the reference (``expected_output``), the retrieved passages (``retrieval_context``) and, in
``additional_metadata``, their chunk ids (``retrieval_context_ids``): DeepEval has no field for a
passage's id. Written:

- ``deepeval_goldens.json``, ``deepeval_goldens.jsonl``, ``deepeval_goldens.csv``:
  ``EvaluationDataset.save_as`` in each file type it has (the JSON file is one array; the JSON
  lines and CSV files join a list with ``|``);
- ``deepeval_results.json``: ``evaluate()``'s result (exact match, a deterministic metric) as its
  ``model_dump_json()``: ``{"test_results": [...]}``;
- ``deepeval_latest_test_run.json``: the ``.deepeval/.latest_test_run.json`` that ``evaluate()``
  leaves behind (camelCase keys).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_IN", "NO")

from deepeval import evaluate  # noqa: E402
from deepeval.dataset import EvaluationDataset, Golden  # noqa: E402
from deepeval.metrics import ExactMatchMetric  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402
from tests.logs.producers.scenario import REQUESTS, Request  # noqa: E402


def metadata(request: Request) -> dict[str, object]:
    return {"retrieval_context_ids": [doc.chunk_id for doc in request.docs], "session_id": request.session}


def golden(request: Request) -> Golden:
    return Golden(input=request.question, actual_output=request.answer, expected_output=request.reference,
                  retrieval_context=[doc.text for doc in request.docs], additional_metadata=metadata(request))


def test_case(request: Request) -> LLMTestCase:
    return LLMTestCase(input=request.question, actual_output=request.answer, expected_output=request.reference,
                       retrieval_context=[doc.text for doc in request.docs], metadata=metadata(request),
                       name=request.key)


def generate(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    goldens = EvaluationDataset(goldens=[golden(request) for request in REQUESTS])
    written = []
    for file_type in ("json", "jsonl", "csv"):
        written.append(Path(goldens.save_as(file_type=file_type, directory=str(folder),
                                            file_name="deepeval_goldens")))
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)  # evaluate() leaves its .deepeval folder in the working directory
        try:
            result = evaluate(test_cases=[test_case(r) for r in REQUESTS], metrics=[ExactMatchMetric()])
            shutil.copyfile(Path(scratch) / ".deepeval" / ".latest_test_run.json",
                            folder / "deepeval_latest_test_run.json")
        finally:
            os.chdir(here)
    (folder / "deepeval_results.json").write_text(result.model_dump_json(), encoding="utf-8")
    return [*written, folder / "deepeval_results.json", folder / "deepeval_latest_test_run.json"]
