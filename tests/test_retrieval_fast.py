"""The loader's fast built-in retrieval stores exactly the rows of the view builtin_retrieval.

The view states the rule (every scored pair, ranked by score then chunk id, top k); the loader
computes the same top k with integer keys and batches of questions (evalwh.retrieval). Generated
runs with a tiny vocabulary make ties common: repeated texts, the same words in another order.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalwh.loader import load_run, retrieval
from evalwh.warehouse.connection import open_warehouse
from tests.conftest import rows, write_table

VOCAB = ["loan", "laptop", "days", "the", "Ünï", "x-1", "14", "of", "desk", "ask"]


@st.composite
def corpora(draw: st.DrawFn) -> tuple[dict[str, str], list[str], str, int]:
    base = draw(st.lists(st.lists(st.sampled_from(VOCAB), min_size=0, max_size=6), min_size=1, max_size=5))
    rng = random.Random(draw(st.integers(0, 10**6)))
    texts = []
    for words in base:  # each text, and copies of it with its words shuffled
        for _ in range(draw(st.integers(1, 3))):
            shuffled = words[:]
            rng.shuffle(shuffled)
            texts.append(" ".join(shuffled))
    ids = [f"c{n:02d}" for n in range(len(texts))]
    rng.shuffle(ids)
    questions = draw(st.lists(st.lists(st.sampled_from(VOCAB), max_size=5).map(" ".join), min_size=1, max_size=5))
    return dict(zip(ids, texts, strict=True)), questions, draw(st.sampled_from(["overlap", "tfidf"])), draw(st.integers(1, 4))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.integers(1, 3), st.booleans(), st.sampled_from(["ascii", "unicode"]), st.booleans())
def test_stored_retrievals_equal_the_view(
    corpus: tuple[dict[str, str], list[str], str, int], batch: int, sparse: bool, tokenizer: str, metrics: bool
) -> None:
    """Both retrievers, both tokenizers; tfidf by batches of questions and by the sparse product; loads
    with and without their metrics (which the overlap scores serve too). The metrics the load stored
    (from the scores it computed) equal those the views compute afresh."""
    chunks, questions, retriever, top_k = corpus
    retrieval.QUESTION_BATCH = batch  # several batches even on a few questions
    retrieval.USE_SPARSE = sparse
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "run"
            write_table(folder / "chunks.csv", ["chunk_id", "text"], [[k, v] for k, v in chunks.items()])
            write_table(folder / "questions.csv", ["question_id", "question", "expected"],
                        [[f"q{n}", q, "answer"] for n, q in enumerate(questions)])
            (folder / "run.toml").write_text(
                f'[retrieval]\nretriever = "{retriever}"\ntop_k = {top_k}\ntokenizer = "{tokenizer}"\n',
                encoding="utf-8")
            db = Path(tmp) / "wh.duckdb"
            load_run(db, folder, run="gen", metrics=metrics)
            order = "ORDER BY question_id, rank"
            stored = rows(db, f"SELECT question_id, chunk_id, rank, score FROM retrievals {order}")
            view = rows(db, f"SELECT question_id, chunk_id, rank, score FROM builtin_retrieval {order}")
            assert stored == view  # scores compared bit for bit
            history = "SELECT position, metric, value FROM {} ORDER BY position"
            live = rows(db, history.format("run_metrics_long"))
            assert rows(db, history.format("metrics_history")) == (live if metrics else [])
    finally:
        retrieval.QUESTION_BATCH = 2_000
        retrieval.USE_SPARSE = True


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.sampled_from(["ascii", "unicode"]))
def test_best_scores_equal_the_view(corpus: tuple[dict[str, str], list[str], str, int], tokenizer: str) -> None:
    """The best scores a load computes for its stored metrics (temp.rt_best) are the rows of the view
    question_best_score, every column, ties to the earliest chunk: from the stored pairs (the overlap
    retriever's) and from the pairs as they are counted (a load that needs only the best scores)."""
    chunks, questions, _, _ = corpus
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        write_table(folder / "chunks.csv", ["chunk_id", "text"], [[k, v] for k, v in chunks.items()])
        write_table(folder / "questions.csv", ["question_id", "question", "expected"],
                    [[f"q{n}", q, ("answer", "refuse")[n % 2]] for n, q in enumerate(questions)])
        (folder / "run.toml").write_text(f'[retrieval]\ntokenizer = "{tokenizer}"\n', encoding="utf-8")
        db = Path(tmp) / "wh.duckdb"
        load_run(db, folder, run="gen", metrics=False)
        order = "ORDER BY question_id"
        view = rows(db, f"SELECT * FROM question_best_score {order}")
        with open_warehouse(db, udfs=False) as con:
            for pairs in (True, False):
                retrieval.overlap_scores(con, "gen", tokenizer, pairs=pairs)
                assert con.execute(f"SELECT * FROM temp.rt_best {order}").fetchall() == view, pairs
                assert [name for (name,) in con.execute(
                    "SELECT table_name FROM duckdb_tables() WHERE database_name = 'temp' ORDER BY 1").fetchall()] \
                    == (["rt_best", "rt_pairs"] if pairs else ["rt_best"])
                con.execute("DROP TABLE IF EXISTS temp.rt_pairs")


def test_scipy_is_there_for_the_sparse_path() -> None:
    # the test extras install scipy, so the property test above covers both paths
    import scipy.sparse  # noqa: F401


def test_equal_word_multisets_tie_and_rank_by_id(tmp_path: Path) -> None:
    # b and a hold the same words in another order; c shares only "loan" (idf ln(4/3)); d nothing.
    # Ties are broken by id: a, then b, then c.
    folder = tmp_path / "run"
    write_table(folder / "chunks.csv", ["chunk_id", "text"],
                [["b", "desk loan laptop loan ask days"], ["a", "days ask loan laptop desk loan"], ["c", "loan x"], ["d", "other words"]])
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [["q", "loan laptop desk", "answer"]])
    (folder / "run.toml").write_text('[retrieval]\nretriever = "tfidf"\ntop_k = 3\n', encoding="utf-8")
    db = tmp_path / "wh.duckdb"
    for attempt in range(3):
        load_run(db, folder, run=f"r{attempt}")
    got = rows(db, "SELECT run_id, chunk_id, rank, score FROM retrievals ORDER BY run_id, rank")
    assert [r[1] for r in got] == ["a", "b", "c"] * 3
    assert got[0][3] == got[1][3]  # bit-identical
    assert len({r[3] for r in got if r[1] in "ab"}) == 1  # and the same in every load


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), st.integers(0, 10**6))
def test_rankings_ignore_word_order_and_repeated_loads(corpus: tuple[dict[str, str], list[str], str, int],
                                                       seed: int) -> None:
    """The same chunks with their words shuffled, in another file order, loaded twice: identical rankings
    and bit-identical scores."""
    chunks, questions, retriever, top_k = corpus
    rng = random.Random(seed)
    shuffled = {}
    for cid in rng.sample(list(chunks), len(chunks)):
        words = chunks[cid].split()
        rng.shuffle(words)
        shuffled[cid] = " ".join(words)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "wh.duckdb"
        for name, texts in (("a", chunks), ("b", shuffled), ("c", chunks)):
            folder = Path(tmp) / name
            write_table(folder / "chunks.csv", ["chunk_id", "text"], [[k, v] for k, v in texts.items()])
            write_table(folder / "questions.csv", ["question_id", "question", "expected"],
                        [[f"q{n}", q, "answer"] for n, q in enumerate(questions)])
            (folder / "run.toml").write_text(f'[retrieval]\nretriever = "{retriever}"\ntop_k = {top_k}\n',
                                             encoding="utf-8")
            load_run(db, folder, run=name)
        got = {name: rows(db, "SELECT question_id, chunk_id, rank, score FROM retrievals WHERE run_id = ? "
                              "ORDER BY question_id, rank", [name]) for name in "abc"}
        assert got["a"] == got["b"] == got["c"]
