"""Each view on the bundled chapter-3 seed against an expected CSV: zero differences both ways.

The expected files in tests/expected/chapter3 hold the chapter's answers
(its evidence values, and its score table for the best scores).
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from evalwh.loader import load_run
from tests.conftest import CHAPTER3, EXPECTED

VIEWS = sorted(p.stem for p in (EXPECTED / "chapter3").glob("*.csv"))


def as_text(value: object) -> str:
    """The CSV spelling of a value: lists joined by '|', booleans lower-case, NULL empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "|".join(as_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def view_rows(db: Path, view: str, columns: list[str]) -> Counter:
    con = duckdb.connect(str(db), read_only=True)
    try:
        select = ", ".join(f'"{c}"' for c in columns)
        return Counter(tuple(as_text(v) for v in row) for row in con.execute(f'SELECT {select} FROM "{view}"').fetchall())
    finally:
        con.close()


def expected_rows(path: Path) -> tuple[list[str], Counter]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, Counter(tuple(row) for row in reader)


@pytest.fixture(scope="module")
def chapter3_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("views") / "wh.duckdb"
    load_run(db, CHAPTER3, run="chapter3")
    return db


@pytest.mark.parametrize("view", VIEWS)
def test_view_matches_expected_csv(chapter3_db: Path, view: str) -> None:
    header, expected = expected_rows(EXPECTED / "chapter3" / f"{view}.csv")
    actual = view_rows(chapter3_db, view, header)
    assert actual - expected == Counter(), f"rows in {view} but not expected"
    assert expected - actual == Counter(), f"expected rows missing from {view}"


def test_every_model_has_an_expected_csv_or_a_reference_test() -> None:
    models = {p.stem for p in (Path(__file__).resolve().parent.parent / "models").glob("*.sql")}
    covered_by_reference = {
        "question_chunk_scores", "run_stopwords",  # test_reference_property
        # test_retrieve_read: the handbook seed and generated runs against tests/reference_rtr.py
        "run_settings", "tfidf_units", "tfidf_scores", "retriever_scores", "builtin_retrieval", "retrieval_ranked", "retrieval_eval",
        "retrieval_recall",
        "gold_overlap", "reader_outputs", "answer_scores", "support_screen", "extractive_baseline",
        "action_confusion", "policy_baselines", "question_outcomes", "gold_ranks",
        # test_axes: the notes' seeds, their functions and hand-computed grades
        "case_scores", "case_score_summary", "answer_sentences", "answer_citation_check", "refusal_use",
        "grader_agreement", "python_white_space",
        # test_logs: sample logs of every format joined with the chapter-3 run
        "log_citation_health", "log_request_scores", "log_refusal_replay", "log_chunk_coverage", "log_daily",
        "log_metrics",
        # test_changes: two runs of one dataset, every label worked out by hand
        "run_pairs", "run_pairs_all", "question_facts", "question_changes", "claim_facts", "claim_changes",
        # test_history: a materialised run from history, a loaded one live
        "claim_history",
        # test_score_sweep: a run with its own retrieval scores, every decision worked out by hand
        "score_sweep",
        # test_baselines: blessings and clearings of two datasets, each comparison chosen by hand
        "baselines",
    }
    assert models - set(VIEWS) - covered_by_reference == set()


def test_views_open_in_plain_duckdb_without_udfs(chapter3_db: Path) -> None:
    con = duckdb.connect(str(chapter3_db), read_only=True)
    try:
        views = [r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()]
        models = {p.stem for p in (Path(__file__).resolve().parent.parent / "models").glob("*.sql")}
        assert set(views) == models
        for view in views:
            con.execute(f'SELECT * FROM "{view}"').fetchall()
    finally:
        con.close()


def test_model_inputs_are_whole_words_outside_comments() -> None:
    from evalwh.warehouse.views import dependency_order, model_inputs

    sources = {"a": "SELECT 1 AS x", "b": "SELECT * FROM a -- not c", "c": "SELECT * FROM b JOIN a_b USING (x)"}
    assert model_inputs(sources) == {"a": set(), "b": {"a"}, "c": {"b"}}
    assert dependency_order(sources) == ["a", "b", "c"]
