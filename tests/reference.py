"""The chapter's Python, generalised from its fixed data to any dataset.

This is the reference the views are tested against: it follows the chapter's
project text line by line and shares no code with evalwh.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CHAPTER_STOP = set(
    "the a an of to is are in on for be by and or it that this who which what how do i can will must "
    "from at with as when".split()
)


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower())


def norm(text: str) -> str:
    return " ".join(words(text))


@dataclass
class Dataset:
    """chunks: id -> text in file order; claims: (id, text, cited ids, quote); questions: (id, q, expected, gold)."""

    chunks: dict[str, str]
    claims: list[tuple[str, str, list[str], str]] = field(default_factory=list)
    questions: list[tuple[str, str, str, str]] = field(default_factory=list)
    stop: set[str] = field(default_factory=lambda: set(CHAPTER_STOP))
    thresholds: tuple[int, ...] = (1, 2, 3, 4, 5)

    def score(self, question: str, chunk_text: str) -> int:
        return len((set(words(question)) - self.stop) & (set(words(chunk_text)) - self.stop))

    def check_claim(self, claim: tuple[str, str, list[str], str]) -> str:
        _, text, cited, quote = claim
        if not cited:
            return "UNCITED"
        if any(c not in self.chunks for c in cited):
            return "DANGLING"
        if not any(norm(quote) in norm(self.chunks[c]) for c in cited):
            return "UNSUPPORTED"
        if any(n not in re.findall(r"\d+", quote) for n in re.findall(r"\d+", text)):
            return "NUMBER_MISMATCH"
        return "SUPPORTED"

    def pairs(self) -> list[tuple[str, int, str, bool, bool]]:
        """(claim id, position, cited id, chunk exists, sound)."""
        out = []
        for claim_id, _, cited, quote in self.claims:
            for position, chunk_id in enumerate(cited, start=1):
                exists = chunk_id in self.chunks
                out.append((claim_id, position, chunk_id, exists, exists and norm(quote) in norm(self.chunks[chunk_id])))
        return out

    def supported_share(self) -> float | None:
        if not self.claims:
            return None
        return sum(self.check_claim(c) == "SUPPORTED" for c in self.claims) / len(self.claims)

    def pair_precision(self) -> float | None:
        pairs = self.pairs()
        return sum(p[4] for p in pairs) / len(pairs) if pairs else None

    def best(self, question: str) -> tuple[int, str | None]:
        """Best score and the first chunk (file order) with it; no chunk when the best is 0."""
        best_score, best_id = 0, None
        for chunk_id, text in self.chunks.items():
            s = self.score(question, text)
            if s > best_score:
                best_score, best_id = s, chunk_id
        return best_score, best_id

    def sweep(self) -> list[tuple[int, int, list[str], list[str]]]:
        """(threshold, correct, wrongly refused ids, wrongly answered ids)."""
        rows = []
        for t in self.thresholds:
            correct, refused, answered = 0, [], []
            for qid, question, expected, _ in self.questions:
                decision = "answer" if self.best(question)[0] >= t else "refuse"
                correct += decision == expected
                if expected == "answer" and decision == "refuse":
                    refused.append(qid)
                if expected == "refuse" and decision == "answer":
                    answered.append(qid)
            rows.append((t, correct, refused, answered))
        return rows

    def cases(self) -> list[tuple[str, str, str]]:
        rows = []
        for qid, _, expected, gold in self.questions:
            chunk = "none"
            if expected == "answer":
                chunk = next((cid for cid, text in self.chunks.items() if norm(gold) in norm(text)), "none")
            rows.append((qid, expected, chunk))
        return rows
