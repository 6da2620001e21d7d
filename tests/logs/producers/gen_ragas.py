"""The scenario as a RAGAS EvaluationDataset of SingleTurnSamples, written by every writer ragas offers.

A sample holds the question (``user_input``), the retrieved passages and their ids, the response
(with its ``[n]`` markers), the reference answer and the ids of the passages that hold it. Written:

- ``ragas_to_jsonl.jsonl``: ``EvaluationDataset.to_jsonl``;
- ``ragas_to_csv.csv``: ``EvaluationDataset.to_csv`` (lists as Python literals);
- ``ragas_pandas.parquet``: ``to_pandas().to_parquet()``;
- ``ragas_hf.jsonl`` and ``ragas_hf.parquet``: ``to_hf_dataset()`` and the datasets library's
  ``to_json`` and ``to_parquet``;
- ``ragas_evaluate.parquet`` and ``ragas_evaluate.jsonl``: ``evaluate()`` with ragas's
  deterministic metrics (ID-based context precision and recall, exact match, string presence),
  its result's ``to_pandas()`` written by pandas, with the metric columns.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from ragas import EvaluationDataset, SingleTurnSample, evaluate  # noqa: E402
from ragas.metrics import ExactMatch, IDBasedContextPrecision, IDBasedContextRecall, StringPresence  # noqa: E402
from tests.logs.producers.scenario import REQUESTS, Request  # noqa: E402

# the passages that hold each reference answer (the evaluation's gold)
GOLD = {"r1": ["handbook-1"], "r2": ["network-1"], "r3": ["expenses-1"], "r4": []}


def sample(request: Request) -> SingleTurnSample:
    return SingleTurnSample(
        user_input=request.question,
        retrieved_contexts=[doc.text for doc in request.docs],
        retrieved_context_ids=[doc.chunk_id for doc in request.docs],
        response=request.answer,
        reference=request.reference,
        reference_context_ids=GOLD[request.key],
    )


def dataset() -> EvaluationDataset:
    return EvaluationDataset(samples=[sample(request) for request in REQUESTS])


def generate(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    data = dataset()
    data.to_jsonl(str(folder / "ragas_to_jsonl.jsonl"))
    data.to_csv(str(folder / "ragas_to_csv.csv"))
    data.to_pandas().to_parquet(folder / "ragas_pandas.parquet")
    hf = data.to_hf_dataset()
    hf.to_json(str(folder / "ragas_hf.jsonl"))
    hf.to_parquet(str(folder / "ragas_hf.parquet"))
    result = evaluate(data, metrics=[IDBasedContextPrecision(), IDBasedContextRecall(), ExactMatch(), StringPresence()],
                      show_progress=False)
    frame = result.to_pandas()
    frame.to_parquet(folder / "ragas_evaluate.parquet")
    frame.to_json(folder / "ragas_evaluate.jsonl", orient="records", lines=True)
    return [folder / name for name in ("ragas_to_jsonl.jsonl", "ragas_to_csv.csv", "ragas_pandas.parquet",
                                       "ragas_hf.jsonl", "ragas_hf.parquet", "ragas_evaluate.parquet",
                                       "ragas_evaluate.jsonl")]
