"""Every view against the chapter's Python (tests/reference.py) on generated datasets.

Nothing in evalwh may be specific to the bundled data: these datasets mix
non-ASCII text, ids with spaces and slashes, claims citing several chunks,
dangling ids, empty quotes and golds, custom stop lists, and every input format.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalwh.loader import load_run
from tests.conftest import write_table
from tests.reference import CHAPTER_STOP, Dataset, words

VOCAB = [
    "loan", "laptop", "laptops", "14", "30", "days", "the", "a", "must", "guest", "wifi", "e-mail", "a--b",
    "İstanbul", "\u212aelvin", "Straße", "ǅemal", "٣", "١٤", "x-1", "-9-", "Ⅻ", "²", "日本語", "naïve", "ΣΊΣΥΦΟΣ",
]
SEPARATORS = [" ", ", ", ". ", "-", "  ", "\u00a0", "/", "\n", "'"]
ID_ALPHABET = "abcXYZ019 /-_.éß日"

text_strategy = st.one_of(
    st.lists(st.tuples(st.sampled_from(VOCAB), st.sampled_from(SEPARATORS)), max_size=12).map(
        lambda parts: "".join(w + s for w, s in parts)
    ),
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=20),
)
id_strategy = st.text(ID_ALPHABET, min_size=1, max_size=6)


@st.composite
def datasets(draw: st.DrawFn) -> tuple[Dataset, dict[str, str], bool]:
    chunk_ids = draw(st.lists(id_strategy, min_size=1, max_size=6, unique=True))
    chunks = {cid: draw(text_strategy) for cid in chunk_ids}

    def quote_from_chunks() -> str:
        text = chunks[draw(st.sampled_from(chunk_ids))]
        tokens = words(text)
        if not tokens:
            return draw(text_strategy)
        start = draw(st.integers(0, len(tokens) - 1))
        end = draw(st.integers(start, len(tokens)))
        return " ".join(tokens[start:end]).upper() if draw(st.booleans()) else " ".join(tokens[start:end])

    claims = []
    for claim_id in draw(st.lists(id_strategy, max_size=6, unique=True)):
        cited = draw(st.lists(st.one_of(st.sampled_from(chunk_ids), id_strategy), max_size=3))
        quote = quote_from_chunks() if draw(st.booleans()) else draw(text_strategy)
        text = draw(st.one_of(text_strategy, st.just(quote)))
        claims.append((claim_id, text, cited, quote))
    questions = []
    for question_id in draw(st.lists(id_strategy, min_size=0 if claims else 1, max_size=6, unique=True)):
        expected = draw(st.sampled_from(["answer", "refuse"]))
        gold = quote_from_chunks() if draw(st.booleans()) else draw(text_strategy)
        questions.append((question_id, draw(text_strategy), expected, gold))
    custom_stop = draw(st.none() | st.sets(st.sampled_from(["loan", "the", "a", "14", "guest", "days"])))
    data = Dataset(chunks, claims, questions)
    if custom_stop is not None:
        data.stop = set(custom_stop)
    formats = {kind: draw(st.sampled_from([".csv", ".tsv", ".jsonl"])) for kind in ("chunks", "claims", "citations", "questions")}
    cited_inline = formats["claims"] == ".jsonl" and draw(st.booleans())
    return data, formats, cited_inline


def carried(fmt: str, rows: list[list[Any]]) -> str:
    """The format, or CSV where TSV (no quoting) cannot carry a value with a tab or line break."""
    if fmt == ".tsv" and any(ch in str(v) for row in rows for v in row for ch in "\t\n\r"):
        return ".csv"
    return fmt


def write_dataset(folder: Path, data: Dataset, formats: dict[str, str], cited_inline: bool) -> None:
    chunk_rows: list[list[Any]] = [[k, v] for k, v in data.chunks.items()]
    write_table(folder / f"chunks{carried(formats['chunks'], chunk_rows)}", ["chunk_id", "text"], chunk_rows)
    if data.claims:
        if cited_inline:
            write_table(folder / "claims.jsonl", ["claim_id", "text", "quote", "cited"],
                        [[c[0], c[1], c[3], c[2]] for c in data.claims])
        else:
            claim_rows: list[list[Any]] = [[c[0], c[1], c[3]] for c in data.claims]
            write_table(folder / f"claims{carried(formats['claims'], claim_rows)}", ["claim_id", "text", "quote"],
                        claim_rows)
            citation_rows: list[list[Any]] = [[c[0], cid] for c in data.claims for cid in c[2]]
            write_table(folder / f"citations{carried(formats['citations'], citation_rows)}", ["claim_id", "chunk_id"],
                        citation_rows)
    if data.questions:
        question_rows: list[list[Any]] = [list(q) for q in data.questions]
        write_table(folder / f"questions{carried(formats['questions'], question_rows)}",
                    ["question_id", "question", "expected", "gold"], question_rows)
    if data.stop != CHAPTER_STOP:
        (folder / "stopwords.txt").write_text("".join(w + "\n" for w in sorted(data.stop)), encoding="utf-8")


def same_share(actual: float | None, expected: float | None) -> bool:
    if actual is None or expected is None:
        return actual is expected
    return math.isclose(actual, expected, rel_tol=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(datasets())
def test_views_agree_with_the_chapter_reference(case: tuple[Dataset, dict[str, str], bool]) -> None:
    data, formats, cited_inline = case
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        folder.mkdir()
        write_dataset(folder, data, formats, cited_inline)
        db = Path(tmp) / "wh.duckdb"
        load_run(db, folder, run="r")
        con = duckdb.connect(str(db), read_only=True)
        try:
            statuses = con.execute("SELECT claim_id, status FROM claim_status ORDER BY ordinal").fetchall()
            assert statuses == [(c[0], data.check_claim(c)) for c in data.claims]

            pairs = con.execute(
                "SELECT claim_id, ordinal, chunk_id, chunk_exists, quote_found FROM citation_pairs ORDER BY claim_id, ordinal"
            ).fetchall()
            assert sorted(pairs) == sorted(data.pairs())

            share, precision = con.execute("SELECT supported_share, pair_precision FROM run_metrics").fetchall()[0]
            assert same_share(share, data.supported_share())
            assert same_share(precision, data.pair_precision())

            scores = dict(
                ((q, c), s) for q, c, s in con.execute("SELECT question_id, chunk_id, score FROM question_chunk_scores").fetchall()
            )
            expected_scores = {
                (qid, cid): data.score(question, text)
                for qid, question, _, _ in data.questions
                for cid, text in data.chunks.items()
                if data.score(question, text) > 0
            }
            assert scores == expected_scores

            best = con.execute("SELECT question_id, best_score, best_chunk_id FROM question_best_score ORDER BY ordinal").fetchall()
            assert best == [(q[0], *data.best(q[1])) for q in data.questions]

            sweep = con.execute(
                "SELECT threshold, correct, wrongly_refused, wrongly_answered FROM threshold_sweep ORDER BY threshold"
            ).fetchall()
            assert sweep == (data.sweep() if data.questions else [])

            cases = con.execute("SELECT question_id, expected, chunk_id FROM cases ORDER BY ordinal").fetchall()
            assert cases == data.cases()
        finally:
            con.close()
