"""The report's sentences about a case, chosen by what actually failed on it.

Note 003 scores three axes apart: retrieval (the expected chunk among the retrieved ids, or
nothing retrieved when none is expected), citation (the cited ids equal the first retrieved
id) and refusal (refused exactly when a refusal is expected). One failure can make another
axis read badly, so each sentence names the failure that explains the row: a missed refusal is
a refusal failure, not a retrieval bug, and a correct refusal's MISS and BAD are the rule at
work, not two bugs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _ids(ids: Sequence[str] | None) -> str:
    return ", ".join(ids or []) or "nothing"


def case_sentence(case: Mapping[str, Any]) -> str | None:
    """One sentence for a scored case (a row of ``case_scores`` with the question's ``expected``),
    or None when all three axes are ok. The sentence is about the failure that explains the row."""
    qid = case["question_id"]
    retrieved, cited = list(case["retrieved_ids"] or []), list(case["cited_ids"] or [])
    wants_refusal = case["expected"] == "refuse"
    if wants_refusal and not case["refused"]:
        return (f"{qid} expects a refusal (nothing in the store answers it) and was answered: a refusal failure. "
                f"It retrieved {_ids(retrieved)} and cited {_ids(cited)}.")
    if wants_refusal:
        if case["retrieval_ok"] and case["citation_ok"]:
            return None
        return (f"{qid} was refused rightly. Retrieval reads MISS by note 003's rule: a question that expects a "
                f"refusal should retrieve nothing, and {_ids(retrieved)} came back; citation reads BAD because the "
                f"refusal cites {_ids(cited)} while the rule wants the first retrieved id ({retrieved[0] if retrieved else 'none'}). "
                "Neither is a failure of the answer; the retrieval side is the retriever returning chunks for a "
                "question the store cannot answer.")
    if case["refused"]:
        found = "" if case["retrieval_ok"] else (f"; its retrieval missed {case['expected_chunk']}, which may be "
                                                 "why it refused")
        return f"{qid} was refused though {case['expected_chunk'] or 'the store'} answers it: a refusal failure{found}."
    if not case["retrieval_ok"] and case["citation_ok"]:
        return (f"{qid} retrieved the wrong chunk and cited it faithfully: a retrieval bug that a citation-only "
                "check, or one accuracy number, would pass or blame on the answer.")
    if not case["retrieval_ok"]:
        return (f"{qid} missed {case['expected_chunk']} in retrieval ({_ids(retrieved)} came back) and cited "
                f"{_ids(cited)}: a retrieval failure, and a citation that does not follow the first retrieved chunk.")
    if not case["citation_ok"]:
        return (f"{qid} retrieved {case['expected_chunk']} but cited {_ids(cited)} where the rule wants the first "
                f"retrieved id ({retrieved[0] if retrieved else 'none'}): a citation failure.")
    return None
