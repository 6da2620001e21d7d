"""The report's sentence for a case names the failure that explains it (note 003's three axes)."""

from __future__ import annotations

from typing import Any

import pytest

from evalwh.report.narrative import case_sentence


def case(expected: str, retrieved: list[str], cited: list[str], refused: bool,
         expected_chunk: str | None) -> dict[str, Any]:
    """A case scored by note 003's rules, computed here from the retrieved and cited ids."""
    retrieval_ok = expected_chunk in retrieved if expected_chunk else not retrieved
    return {"question_id": "q", "expected": expected, "expected_chunk": expected_chunk, "retrieved_ids": retrieved,
            "cited_ids": cited, "refused": refused, "retrieval_ok": retrieval_ok,
            "citation_ok": cited == retrieved[:1], "refusal_ok": refused == (expected == "refuse")}


def test_all_three_axes_ok_needs_no_sentence() -> None:
    assert case_sentence(case("answer", ["c1"], ["c1"], False, "c1")) is None
    assert case_sentence(case("refuse", [], [], True, None)) is None  # note 003's q3


def test_a_faithfully_cited_wrong_chunk_is_a_retrieval_bug() -> None:
    sentence = case_sentence(case("answer", ["c3"], ["c3"], False, "c1"))  # note 003's q2
    assert sentence is not None and "retrieval bug" in sentence


def test_a_missed_refusal_is_a_refusal_failure_not_a_retrieval_bug() -> None:
    # retrieval MISS (something retrieved for an unanswerable question) and citation ok: the same
    # two axes as a faithful wrong chunk, but the failure is the missing refusal
    c = case("refuse", ["h1"], ["h1"], False, None)
    assert (c["retrieval_ok"], c["citation_ok"], c["refusal_ok"]) == (False, True, False)
    sentence = case_sentence(c)
    assert sentence is not None and "a refusal failure" in sentence and "retrieval bug" not in sentence


@pytest.mark.parametrize("retrieved", [["h1"], ["h1", "h2"]])
def test_a_correct_refusal_explains_its_miss_and_bad(retrieved: list[str]) -> None:
    c = case("refuse", retrieved, [], True, None)
    assert (c["retrieval_ok"], c["citation_ok"], c["refusal_ok"]) == (False, False, True)
    sentence = case_sentence(c)
    assert sentence is not None
    assert sentence.startswith("q was refused rightly.") and "note 003's rule" in sentence
    assert f"({retrieved[0]})" in sentence and "bug" not in sentence


def test_a_wrong_refusal_and_a_wrong_citation_are_named() -> None:
    refused = case_sentence(case("answer", ["c1"], [], True, "c1"))
    assert refused == "q was refused though c1 answers it: a refusal failure."
    cited = case_sentence(case("answer", ["c1", "c2"], ["c2"], False, "c1"))
    assert cited is not None and cited.endswith("a citation failure.") and "(c1)" in cited
