"""The retrieve-then-read rules, written out plainly in Python from their statement.

The reference for the retrieval, reader, answer-scoring and support views. It
shares no code with evalwh: tokenising, tf-idf, parsing, SQuAD normalisation
and the screen are each re-derived here from the rules' text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

ASCII = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def is_letter_or_number(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def tokens(text: str, tokenizer: str) -> list[str]:
    low = text.lower()
    if tokenizer == "ascii":
        return ASCII.findall(low)
    out, current = [], ""
    for ch in low:  # [\p{L}\p{N}][\p{L}\p{N}-]*
        if is_letter_or_number(ch) or (ch == "-" and current):
            current += ch
        else:
            if current:
                out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def numbers(text: str) -> list[str]:
    """Digit runs whose preceding character is not a letter or digit."""
    out, i = [], 0
    while i < len(text):
        if text[i].isdecimal() and (i == 0 or not is_letter_or_number(text[i - 1])):
            j = i
            while j < len(text) and text[j].isdecimal():
                j += 1
            out.append(text[i:j])
            i = j
        elif text[i].isdecimal():
            while i < len(text) and text[i].isdecimal():
                i += 1
        else:
            i += 1
    return out


def normalize_answer(s: str) -> str:
    """SQuAD's normalize_answer, its steps in its order, with Unicode punctuation and symbols."""
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PS")

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def f1(prediction: str, reference: str) -> float:
    """The handbook method: 0 when either side has no tokens."""
    p, r = normalize_answer(prediction).split(), normalize_answer(reference).split()
    if not p or not r:
        return 0.0
    common = sum((Counter(p) & Counter(r)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(r)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, reference: str) -> int:
    """Equal normal forms; a reference with no tokens scores 0, as in f1."""
    return int(normalize_answer(reference) != "" and normalize_answer(prediction) == normalize_answer(reference))


STRICT = re.compile(r"^Answer: ([^\r\n]+)\r?\nSources: ([^\r\n]+)$")
# Unicode's White_Space property (PropList.txt), what stringr's str_trim (stri_trim_both) removes
WHITE_SPACE = {*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F,
               0x205F, 0x3000}


def icu_space(ch: str) -> bool:
    r"""ICU's regex \s: [\t\n\f\r\p{Z}]."""
    return ch in "\t\n\f\r" or unicodedata.category(ch).startswith("Z")


def str_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and ord(text[start]) in WHITE_SPACE:
        start += 1
    while end > start and ord(text[end - 1]) in WHITE_SPACE:
        end -= 1
    return text[start:end]


def str_squish(text: str) -> str:
    r"""str_replace_all(text, "\\s+", " ") then str_trim."""
    out, in_run = [], False
    for ch in text:
        if icu_space(ch):
            if not in_run:
                out.append(" ")
            in_run = True
        else:
            out.append(ch)
            in_run = False
    return str_trim("".join(out))


def str_split_sources(text: str) -> list[str]:
    r"""str_split(text, "\\s*,\\s*"): split at each comma with the ICU white space around it, every
    item kept (empty ones too)."""
    items = text.split(",")
    for n in range(len(items)):
        if n > 0:
            while items[n] and icu_space(items[n][0]):
                items[n] = items[n][1:]
        if n < len(items) - 1:
            while items[n] and icu_space(items[n][-1]):
                items[n] = items[n][:-1]
    return items


def parse(output: str) -> tuple[bool, str | None, list[str]]:
    """The lesson's parse_reader_output: str_match of STRICT over str_trim(output); the answer and the
    sources str_squish-ed; sources 'none' (any case) are none, else str_split at commas, empty items kept."""
    m = STRICT.match(str_trim(output))
    if not m or m.end() != len(str_trim(output)):
        return False, None, []
    answer = str_squish(m.group(1))
    sources_text = str_squish(m.group(2))
    if sources_text.lower() == "none":
        return True, answer, []
    return True, answer, str_split_sources(sources_text)


def first_sentence(text: str) -> str:
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1].isspace()):
            return text[: i + 1].strip()
    return text.strip()


@dataclass
class Question:
    qid: str
    text: str
    expected: str
    gold_chunk: str | None = None
    acceptable: list[str] = field(default_factory=list)
    # the acceptable_answers text split on "|" as the lesson's questions table holds it (None: the
    # acceptable answers themselves, joined by "|")
    raw_variants: list[str] | None = None

    def lesson_variants(self) -> list[str]:
        """The lesson's variants[nzchar(variants)]: only the empty ones dropped."""
        return [v for v in (self.raw_variants if self.raw_variants is not None else self.acceptable) if v != ""]


@dataclass
class RetrieveRead:
    chunks: dict[str, str]
    questions: list[Question]
    responses: dict[str, str]
    stop: set[str]
    retriever: str = "overlap"
    top_k: int = 3
    tokenizer: str = "ascii"
    abstain: str = "NOT IN HANDBOOK"
    premise: str = "PREMISE NOT SUPPORTED"
    retrieved_file: dict[str, list[str]] | None = None  # question -> ids by rank, when given

    def terms(self, text: str) -> list[str]:
        return [t for t in tokens(text, self.tokenizer) if t not in self.stop]

    def scores(self, question: str) -> dict[str, float]:
        if self.retriever == "overlap":
            q = set(self.terms(question))
            return {cid: float(len(q & set(self.terms(text)))) for cid, text in self.chunks.items()}
        n = len(self.chunks)
        chunk_tf = {cid: Counter(self.terms(text)) for cid, text in self.chunks.items()}
        df = Counter(term for tf in chunk_tf.values() for term in tf)
        idf = {term: math.log(n / d) for term, d in df.items()}
        q_tf = Counter(t for t in self.terms(question) if t in idf)
        q_vec = {t: c * idf[t] for t, c in q_tf.items()}
        q_norm = math.sqrt(sum(w * w for w in q_vec.values()))
        out = {}
        for cid, tf in chunk_tf.items():
            c_vec = {t: c * idf[t] for t, c in tf.items()}
            c_norm = math.sqrt(sum(w * w for w in c_vec.values()))
            dot = sum(w * c_vec.get(t, 0.0) for t, w in q_vec.items())
            out[cid] = dot / (q_norm * c_norm) if q_norm > 0 and c_norm > 0 else 0.0
        return out

    def ranked(self, q: Question) -> list[tuple[str, float]]:
        scored = [(cid, s) for cid, s in self.scores(q.text).items() if s > 0]
        # equal scores are equal: floating-point noise in the last bits is not a ranking
        scored.sort(key=lambda x: (-round(x[1], 12), x[0]))
        return scored[: self.top_k]

    def full_rank(self, q: Question) -> int | None:
        """The lesson's gold_rank: the gold chunk's display_rank in the ranking of every chunk (score
        descending, then id), which only a score above 0 has."""
        if q.gold_chunk is None:
            return None
        everything = sorted(self.scores(q.text).items(), key=lambda x: (-round(x[1], 12), x[0]))
        ranks = {cid: n + 1 for n, (cid, s) in enumerate(everything) if s > 0}
        return ranks.get(q.gold_chunk)

    def retrieved_ids(self, q: Question) -> list[str]:
        if self.retrieved_file is not None:
            return self.retrieved_file.get(q.qid, [])
        return [cid for cid, _ in self.ranked(q)]

    def recall(self, q: Question) -> int | None:
        if q.gold_chunk is None:
            return None
        return int(q.gold_chunk in self.retrieved_ids(q)[: self.top_k])

    def label(self, q: Question) -> str:
        if q.gold_chunk is None:
            return "no gold chunk"
        ids = self.retrieved_ids(q)
        if q.gold_chunk in ids[: self.top_k]:
            return f"retrieved at rank {ids.index(q.gold_chunk) + 1}"
        if self.scores(q.text).get(q.gold_chunk, 0.0) == 0:
            return "not retrieved (all scores 0)"
        return f"not retrieved (below the top {self.top_k})"

    def shared_words(self, q: Question) -> list[str]:
        return sorted(set(self.terms(q.text)) & set(self.terms(self.chunks[q.gold_chunk])))

    def action(self, qid: str) -> str:
        ok, answer, _ = parse(self.responses[qid])
        if not ok or answer is None:
            return "parse_failure"
        if answer.startswith(self.abstain):
            return "refuse"
        if answer.startswith(self.premise):
            return "flag_premise"
        return "answer"

    def em_f1(self, q: Question) -> tuple[int, float] | None:
        if not q.acceptable:
            return None
        ok, answer, _ = parse(self.responses[q.qid])
        if self.action(q.qid) != "answer" or answer is None:  # refuse, flag_premise, parse_failure: empty
            return 0, 0.0
        return max(exact_match(answer, a) for a in q.acceptable), max(f1(answer, a) for a in q.acceptable)

    def lesson_em_f1(self, q: Question) -> tuple[int, float] | None:
        """The lesson's best_reference_scores of answer_for_reference_score (the parsed answer of an answer
        action, else ""): EM 1 when the normal forms are identical (both empty too), F1 its answer_f1."""
        variants = q.lesson_variants()
        if not variants:
            return None
        ok, answer, _ = parse(self.responses[q.qid])
        prediction = answer if ok and answer is not None and self.action(q.qid) == "answer" else ""
        return (max(int(normalize_answer(prediction) == normalize_answer(v)) for v in variants),
                max(f1(prediction, v) for v in variants))

    def baseline_contains(self, q: Question) -> bool | None:
        """The lesson's contains_acceptable_answer: for a question that expects an answer, whether the first
        sentence of the rank-1 chunk contains a normalised acceptable answer (one normalising to nothing is
        contained nowhere: str_detect of an empty pattern gives NA); NA (None) for the other questions."""
        if q.expected != "answer":
            return None
        ids = self.retrieved_ids(q)
        if not ids:
            return False
        sentence = normalize_answer(first_sentence(self.chunks[ids[0]]))
        return any(normalize_answer(a) != "" and normalize_answer(a) in sentence for a in q.acceptable)

    def screen(self, q: Question) -> list[str]:
        ok, answer, sources = parse(self.responses[q.qid])
        action = self.action(q.qid)
        failed = []
        if not ok:
            failed.append("parsed")
        if any(s not in self.chunks for s in sources):
            failed.append("cited_exist")
        if any(s not in self.retrieved_ids(q) for s in sources):
            failed.append("cited_retrieved")
        if action == "answer" and not sources:
            failed.append("answer_has_citation")
        if action == "refuse" and sources:
            failed.append("refusal_sources_ok")
        text = answer or ""
        for s in sorted(sources, key=len, reverse=True):
            text = text.replace(s, " ")
        cited_numbers = {n for s in sources if s in self.chunks for n in numbers(self.chunks[s])}
        if any(n not in cited_numbers for n in numbers(text)):
            failed.append("numbers_supported")
        return failed
