"""gold_matches, the gold search of `cases` and `case_scores`: the first chunk (file order) whose
norm(text) contains norm(gold), whichever way the view searches (every chunk text for short golds,
the chunks holding the rarest inner word for golds of three words or more), checked against
textnorm.norm on texts whose words are parts of one another."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalwh.loader import load_run
from evalwh.text.textnorm import norm
from tests.conftest import DUCKDB_1, rows, write_table

# words that are prefixes, suffixes and parts of one another, a hyphenated one and punctuation
WORD = st.sampled_from(["ab", "b", "abc", "bc", "c", "a-b", "ca", "B", ".", "-", "12"])
TEXT = st.lists(WORD, max_size=8).map(" ".join)


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str]]]:
    chunks = draw(st.lists(TEXT, min_size=1, max_size=6))
    questions = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            # a character span of a chunk's norm(text): it may start and end inside a word
            source = norm(draw(st.sampled_from(chunks)))
            start = draw(st.integers(0, len(source)))
            gold = source[start:draw(st.integers(start, len(source)))]
        else:
            gold = draw(TEXT)
        questions.append((gold, draw(st.sampled_from(["answer", "answer", "refuse"]))))
    return chunks, questions


@settings(max_examples=60, deadline=None)
@given(runs())
def test_cases_finds_the_first_chunk_holding_the_gold(run: tuple[list[str], list[tuple[str, str]]]) -> None:
    chunks, questions = run
    ids = [f"k{i}" for i in range(len(chunks))]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        write_table(folder / "chunks.csv", ["chunk_id", "text"], [[i, t] for i, t in zip(ids, chunks, strict=True)])
        write_table(folder / "questions.csv", ["question_id", "question", "expected", "gold"],
                    [[f"q{n}", "?", expected, gold] for n, (gold, expected) in enumerate(questions)])
        db = Path(tmp) / "wh.duckdb"
        load_run(db, folder, run="r", metrics=False)
        got = rows(db, "SELECT question_id, chunk_id FROM cases ORDER BY ordinal")
    want = [
        (f"q{n}", "none" if expected == "refuse" else
         next((i for i, t in zip(ids, chunks, strict=True) if norm(gold) in norm(t)), "none"))
        for n, (gold, expected) in enumerate(questions)
    ]
    assert got == want


def test_golds_that_start_or_end_inside_a_word(db: Path, tmp_path: Path) -> None:
    # k0's norm is "xab cd efg", k1's "ab cd ef": the first chunk holds every gold below but "zz",
    # though in k0 the golds start or end inside a word
    folder = tmp_path / "run"
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["k0", "Xab cd, efg."], ["k1", "ab cd ef"]])
    golds = {"one_inside": "b", "one_prefix": "ef", "two_suffix_first": "ab cd", "two_both_inside": "d ef",
             "two_whole_first": "cd efg", "three": "ab cd e", "three_whole": "ab cd ef", "absent": "zz"}
    write_table(folder / "questions.csv", ["question_id", "question", "expected", "gold"],
                [[q, "?", "answer", g] for q, g in golds.items()])
    load_run(db, folder, run="r", metrics=False)
    got = dict(rows(db, "SELECT question_id, chunk_id FROM cases"))
    assert got == {q: ("none" if q == "absent" else "k0") for q in golds}


def test_each_run_searches_its_own_chunks(db: Path, tmp_path: Path) -> None:
    # two runs with the same chunk ids and the same golds: a gold is found only in its own run's chunks,
    # whether the warehouse is read for one run or for both at once
    texts = {"a": ["red fox jumps", "blue whale sings loudly", "red"], "b": ["blue whale sings", "red fox"]}
    golds = {"one": "red", "two": "red fox", "three": "whale sings loudly", "inner": "blue whale sings"}
    for run, chunks in texts.items():
        folder = tmp_path / run
        write_table(folder / "chunks.csv", ["chunk_id", "text"], [[f"k{i}", t] for i, t in enumerate(chunks)])
        write_table(folder / "questions.csv", ["question_id", "question", "expected", "gold"],
                    [[q, "?", "answer", g] for q, g in golds.items()])
        load_run(db, folder, run=run, metrics=False)
    want = {(run, q): next((f"k{i}" for i, t in enumerate(chunks) if g in t), "none")
            for run, chunks in texts.items() for q, g in golds.items()}
    assert want[("a", "three")] == "k1" and want[("b", "three")] == "none" and want[("b", "one")] == "k1"
    both = {(r, q): c for r, q, c in rows(db, "SELECT run_id, question_id, chunk_id FROM cases")}
    assert both == want
    for run in texts:
        alone = {(r, q): c for r, q, c in rows(db, "SELECT run_id, question_id, chunk_id FROM cases WHERE run_id = ?",
                                               [run])}
        assert alone == {k: v for k, v in want.items() if k[0] == run}


def _plan_operators(db: Path, sql: str) -> list[str]:
    """The name of every operator in DuckDB's physical plan of ``sql``."""
    (plan,) = rows(db, f"EXPLAIN (FORMAT JSON) {sql}")
    names: list[str] = []
    stack = json.loads(plan[1])
    while stack:
        node = stack.pop()
        names.append(node["name"])
        stack.extend(node.get("children", []))
    return names


@pytest.mark.skipif(DUCKDB_1, reason="the plan's shape is DuckDB 2's optimizer's")
def test_case_scores_of_a_run_without_responses_never_searches_the_chunks(db: Path, tmp_path: Path) -> None:
    # run "b" has responses, "a" none. case_scores of "a" is empty, and DuckDB knows it before running
    # anything: neither the gold search (the chunks' words unnested) nor any scan is in its plan, so
    # storing or comparing such a run's metrics costs nothing for the search (models/gold_matches.sql)
    for run, responses in (("a", False), ("b", True)):
        folder = tmp_path / run
        write_table(folder / "chunks.csv", ["chunk_id", "text"], [["k0", "red fox jumps high"], ["k1", "blue whale"]])
        write_table(folder / "questions.csv", ["question_id", "question", "expected", "gold"],
                    [["q0", "which fox?", "answer", "red fox jumps"], ["q1", "whale?", "answer", "blue whale"]])
        if responses:
            write_table(folder / "responses.jsonl", ["question_id", "answer", "cited", "refused"],
                        [["q0", "red fox", ["k0"], False], ["q1", "a whale", ["k1"], False]])
            (folder / "run.toml").write_text('[reader]\nformat = "structured"\n', encoding="utf-8")
        load_run(db, folder, run=run, metrics=False)
    assert rows(db, "SELECT run_id, question_id, expected_chunk FROM case_scores ORDER BY ALL") == [
        ("b", "q0", "k0"), ("b", "q1", "k1")]
    searched = _plan_operators(db, "SELECT * FROM case_scores WHERE run_id = 'b'")
    assert "UNNEST" in searched
    unanswered = _plan_operators(db, "SELECT * FROM case_scores WHERE run_id = 'a'")
    assert "EMPTY_RESULT" in unanswered
    assert not {"UNNEST", "SEQ_SCAN", "TABLE_SCAN", "HASH_JOIN"} & set(unanswered), unanswered
