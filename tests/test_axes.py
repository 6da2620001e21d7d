"""Three-axis case scores (note 003), bracket citations and the refusal phrase (note 002), grader agreement."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.report import build_report
from tests.conftest import REPO, rows, write_table

THREE_AXIS = REPO / "seeds" / "three-axis"


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])



def note_validate_citations(answer: str, n_passages: int) -> dict:
    """Note 002's function, as printed there: the reference for the bracket check."""
    nums = {int(n) for n in re.findall(r"\[(\d+)\]", answer)}
    invalid = {n for n in nums if not 1 <= n <= n_passages}
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", answer.strip()) if s]
    uncited = [s for s in sentences if not re.search(r"\[\d+\]", s) and len(s.split()) > 5]
    return {"invalid_citations": sorted(invalid), "sentences_without_citation": len(uncited),
            "ok": not invalid and not uncited}


def test_three_axis_seed_prints_the_notes_table(db: Path) -> None:
    assert run(db, "seed", "three-axis").exit_code == 0
    result = run(db, "scores", "--format", "csv")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "case_id,retrieval,citation,refusal", "q1,hit,ok,ok", "q2,MISS,ok,ok", "q3,hit,ok,ok",
    ]
    table = run(db, "scores").stdout
    assert table.splitlines()[-1] == "retrieval 2/3  citation 3/3  refusal 3/3"
    metrics = {r[0]: r[1] for r in rows(db, "SELECT metric, value FROM run_metrics_long")}
    assert metrics["retrieval_accuracy"] == pytest.approx(2 / 3)
    assert metrics["citation_accuracy"] == 1 and metrics["refusal_accuracy"] == 1
    md = build_report(db, "three-axis", "md", None)
    assert "| q2 | c1 | c3 | c3 | MISS | ok | ok |" in md
    assert "q2 retrieved the wrong chunk and cited it faithfully" in md
    assert "| **total** | | | | 2/3 | 3/3 | 3/3 |" in md
    assert "<h2>Retrieval, citation and refusal, scored apart</h2>" in build_report(db, "three-axis", "html", None)


def test_check_gates_on_an_axis(db: Path) -> None:
    run(db, "seed", "three-axis")
    failed = run(db, "check", "--min", "retrieval_accuracy=0.9")
    assert failed.exit_code == 1
    assert "FAIL  retrieval_accuracy >= 0.900: is 0.667" in failed.stdout


def bracket_run(folder: Path, answers: dict[str, str], retrieved: dict[str, list[str]], chunks: dict[str, str]) -> Path:
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [[k, v] for k, v in chunks.items()])
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [[q, "?", "answer"] for q in answers])
    write_table(folder / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"],
                [[q, cid, str(i + 1), ""] for q, ids in retrieved.items() for i, cid in enumerate(ids)])
    write_table(folder / "responses.csv", ["question_id", "output"], [[q, a] for q, a in answers.items()])
    (folder / "run.toml").write_text('[reader]\nformat = "bracket"\n', encoding="utf-8")
    return folder


def test_note_002_example(db: Path, tmp_path: Path) -> None:
    answer = "The battery life is 12 hours [1]. The price is 4 990 kr [7]."
    chunks = {"p1": "Battery life: 12 hours.", "p2": "Price 4 990 kr.", "p3": "Colour black.", "p4": "Weight 1 kg."}
    load_run(db, bracket_run(tmp_path / "b", {"x": answer}, {"x": list(chunks)}, chunks), run="b")
    assert rows(db, "SELECT invalid_citations, sentences_without_citation, ok FROM answer_citation_check") == [
        (["7"], 0, False)]  # marker numbers are kept as decimal text, so that any size fits
    assert rows(db, "SELECT sentence_no, sentence, markers, chunk_ids, uncited, numbers_supported "
                    "FROM answer_sentences ORDER BY sentence_no") == [
        (1, "The battery life is 12 hours [1].", ["1"], ["p1"], False, True),
        (2, "The price is 4 990 kr [7].", ["7"], [], False, False),  # [7] names no passage, so 4 and 990 are unbacked
    ]
    assert rows(db, "SELECT sources FROM responses") == [(["p1"],)]
    md = build_report(db, "b", "md", None)
    assert "| x | 4 | 7 | 0 | not ok |" in md


answer_parts = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["word", "battery", "12", "life", "is", "a", "4", "990"]), min_size=1, max_size=8),
        st.lists(st.integers(0, 9) | st.integers(0, 10**40), max_size=2),
        st.sampled_from([".", "!", "?", ""]),
    ),
    min_size=1, max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(answer_parts, st.integers(0, 5))
def test_bracket_check_agrees_with_the_notes_function(parts: list, n_passages: int) -> None:
    answer = " ".join(" ".join(ws) + "".join(f"[{m}]" for m in ms) + end for ws, ms, end in parts)
    chunks = {f"c{i}": f"passage {i}" for i in range(1, 6)}
    with tempfile.TemporaryDirectory() as tmp:
        folder = bracket_run(Path(tmp) / "r", {"x": answer}, {"x": list(chunks)[:n_passages]}, chunks)
        db = Path(tmp) / "wh.duckdb"
        load_run(db, folder, run="r")
        got = rows(db, "SELECT invalid_citations, sentences_without_citation, ok FROM answer_citation_check")
    want = note_validate_citations(answer, n_passages)
    assert got == [([str(n) for n in want["invalid_citations"]], want["sentences_without_citation"], want["ok"])]


PHRASE = "That does not appear from the material."


@pytest.mark.parametrize("reader_format", ["two_line", "bracket"])
def test_refusal_phrase_right_wrong_and_missed(db: Path, tmp_path: Path, reader_format: str) -> None:
    folder = tmp_path / reader_format
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["k1", "Refunds within 30 days [policy]."]])
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [
        ["a1", "refund window?", "answer"],     # answerable, refused: wrongly
        ["a2", "refund days?", "answer"],       # answerable, answered
        ["u1", "office address?", "refuse"],    # unanswerable, refused: rightly
        ["u2", "parking?", "refuse"],           # unanswerable, answered: missed
    ])
    def out(text: str, sources: str = "none") -> str:
        return f"Answer: {text}\nSources: {sources}" if reader_format == "two_line" else text
    refusal = "NOT IN HANDBOOK" if reader_format == "two_line" else PHRASE  # the lesson's parser: the marker
    write_table(folder / "responses.csv", ["question_id", "output"], [
        ["a1", out(refusal)], ["a2", out("Within 30 days [1].", "k1")], ["u1", out(refusal)], ["u2", out("Park anywhere.")],
    ])
    (folder / "run.toml").write_text(f'[reader]\nformat = "{reader_format}"\n', encoding="utf-8")
    load_run(db, folder, run="r")
    assert rows(db, "SELECT rightly, wrongly, missed, rightly_ids, wrongly_ids, missed_ids FROM refusal_use") == [
        (1, 1, 1, ["u1"], ["a1"], ["u2"])]
    metrics = dict(rows(db, "SELECT metric, value FROM run_metrics_long"))
    assert (metrics["refusals_wrong"], metrics["refusals_missed"]) == (1, 1)


def test_the_refusal_phrase_is_compared_after_python_strip(db: Path, tmp_path: Path) -> None:
    """A bracket answer is the phrase when str.strip() leaves exactly the phrase: tab, newline, carriage
    return, NBSP and U+3000 around it are stripped; a zero-width space (no white space), a doubled inner
    space or a changed letter are not the phrase. A two-line answer that is the phrase is an answer (the
    lesson's parser refuses by the abstain marker only)."""
    outputs = {
        "s1": f"\t{PHRASE}\r\n", "s2": f"\u00a0{PHRASE}\u3000", "s3": f"\n \x1c{PHRASE}\x0b\x85",
        "n1": f"{PHRASE}\u200b", "n2": PHRASE.replace("does not", "does  not"), "n3": PHRASE.lower(),
    }
    expected = {qid: ("refuse" if qid.startswith("s") else "answer") for qid in outputs}
    assert expected == {qid: ("refuse" if out.strip() == PHRASE else "answer") for qid, out in outputs.items()}
    folder = tmp_path / "b"
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [[q, "?", "refuse"] for q in outputs])
    write_table(folder / "responses.csv", ["question_id", "output"], [[q, o] for q, o in outputs.items()])
    (folder / "run.toml").write_text('[reader]\nformat = "bracket"\n', encoding="utf-8")
    load_run(db, folder, run="b")
    assert rows(db, "SELECT chars FROM python_white_space") == [
        ("".join(ch for ch in map(chr, range(0x110000)) if ch.isspace()),)]
    assert dict(rows(db, "SELECT question_id, action FROM reader_outputs WHERE run_id = 'b'")) == expected
    two = tmp_path / "t"
    write_table(two / "questions.csv", ["question_id", "question", "expected"], [["u1", "?", "refuse"]])
    write_table(two / "responses.csv", ["question_id", "output"], [["u1", f"Answer: {PHRASE}\nSources: none"]])
    load_run(db, two, run="t")
    assert rows(db, "SELECT action FROM reader_outputs WHERE run_id = 't'") == [("answer",)]


def test_custom_refusal_phrase(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "custom"
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [["u1", "?", "refuse"]])
    write_table(folder / "responses.csv", ["question_id", "output"], [["u1", "  I cannot say.  "]])
    (folder / "run.toml").write_text('[reader]\nformat = "bracket"\nrefusal_phrase = "I cannot say."\n', encoding="utf-8")
    load_run(db, folder, run="r")
    assert rows(db, "SELECT action FROM reader_outputs") == [("refuse",)]


def test_grader_agreement_and_the_report_warning(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "graded"
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [[f"q{i}", "?", "answer"] for i in range(5)])
    write_table(folder / "grades.csv", ["item_id", "grader", "label"], [
        ["q0", "human", "correct"], ["q1", "human", "wrong"], ["q2", "human", "correct"], ["q3", "human", "wrong"],
        ["q0", "judge-a", "correct"], ["q1", "judge-a", "correct"], ["q2", "judge-a", "correct"],
        ["q3", "judge-a", "correct"], ["q4", "judge-a", "correct"],    # q4 has no hand grade
        ["q0", "judge-b", "Correct "], ["q1", "judge-b", "wrong"],
    ])
    load_run(db, folder, run="g")
    assert rows(db, "SELECT judge, items, disagreements, disagreement_rate, disagreed_items FROM grader_agreement "
                    "ORDER BY judge") == [
        ("judge-a", 4, 2, 0.5, ["q1", "q3"]),
        ("judge-b", 2, 0, 0.0, []),
    ]
    md = build_report(db, "g", "md", None, judge_tolerance=0.25)
    assert "**Judge judge-a disagrees with the hand grades on 2 of 4 items (0.500), more than the tolerance of 0.250" in md
    assert "Judge judge-b disagrees" not in md
    assert run(db, "check", "--max", "judge_disagreement_rate=0.25").exit_code == 1


BAD = [
    ("grade twice", "grades.csv", [["item_id", "grader", "label"], ["q0", "human", "ok"], ["q0", "Human", "bad"]],
     "grades.csv, row 2, column grader: item 'q0' graded twice by 'Human' (first at row 1)"),
    ("empty label", "grades.csv", [["item_id", "grader", "label"], ["q0", "human", " "]],
     "grades.csv, row 1, column label: empty label"),
    ("refused not boolean", "responses.jsonl", [["question_id", "answer", "refused"], ["q0", "x", "maybe"]],
     "responses.jsonl, row 1, column refused: refused must be true or false, not 'maybe'"),
    ("structured without answer", "responses.jsonl", [["question_id", "output"], ["q0", "x"]],
     "responses.jsonl, column answer: missing column 'answer' for reader format 'structured' (found: output, question_id)"),
]


@pytest.mark.parametrize("name,file,table,message", BAD, ids=[b[0] for b in BAD])
def test_bad_axis_input(db: Path, tmp_path: Path, name: str, file: str, table: list, message: str) -> None:
    folder = tmp_path / "bad"
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [["q0", "?", "answer"]])
    write_table(folder / file, table[0], table[1:])
    (folder / "run.toml").write_text('[reader]\nformat = "structured"\n', encoding="utf-8")
    result = run(db, "load", str(folder))
    assert result.exit_code == 2
    assert result.stderr == f"evalwh: error: {message}\n"
    assert not db.exists()


def test_claims_still_need_chunks(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "noch"
    write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [["c1", "t", "q"]])
    result = run(db, "load", str(folder))
    assert result.exit_code == 2
    assert "a run with claims needs its chunks" in result.stderr


WORD = st.sampled_from(["leave", "days", "25", "annual", "staff", "it", "desk", "Ünï", "-", "."])


@settings(max_examples=40, deadline=None)
@given(
    chunks=st.lists(st.lists(WORD, min_size=0, max_size=6).map(" ".join), min_size=1, max_size=5),
    questions=st.lists(
        st.tuples(
            st.lists(WORD, min_size=0, max_size=3).map(" ".join),       # gold text
            st.sampled_from(["answer", "refuse"]),
            st.none() | st.integers(min_value=0, max_value=4),          # gold chunk id: an index
            st.booleans(),                                              # has a response
        ),
        min_size=1, max_size=6,
    ),
)
def test_case_scores_expect_the_chunk_cases_finds(chunks: list[str], questions: list[tuple]) -> None:
    """The expected chunk of a scored question is its gold chunk id, else the first chunk (file order)
    whose norm(text) contains norm(gold): the rule of `cases`, which case_scores applies to its own
    questions only. Checked against textnorm.norm, and against the cases view."""
    from evalwh.text.textnorm import norm

    ids = [f"k{i}" for i in range(len(chunks))]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        write_table(folder / "chunks.csv", ["chunk_id", "text"], [[i, t] for i, t in zip(ids, chunks, strict=True)])
        qrows = [[f"q{n}", "?", expected, gold, ids[g % len(ids)] if g is not None else ""]
                 for n, (gold, expected, g, _) in enumerate(questions)]
        write_table(folder / "questions.csv", ["question_id", "question", "expected", "gold", "gold_chunk_id"], qrows)
        answered = [f"q{n}" for n, q in enumerate(questions) if q[3]]
        write_table(folder / "responses.csv", ["question_id", "output"],
                    [[q, "Answer: something\nSources: none"] for q in answered])
        db = Path(tmp) / "wh.duckdb"
        load_run(db, folder, run="r")
        got = dict(rows(db, "SELECT question_id, expected_chunk FROM case_scores"))
        via_cases = dict(rows(db, "SELECT q.question_id, COALESCE(q.gold_chunk_id, nullif(c.chunk_id, 'none')) "
                                  "FROM questions AS q JOIN cases AS c USING (run_id, question_id)"))
    want = {}
    for n, (gold, expected, g, has_response) in enumerate(questions):
        if not has_response:
            continue
        if g is not None:
            want[f"q{n}"] = ids[g % len(ids)]
        elif expected == "refuse":
            want[f"q{n}"] = None
        else:
            want[f"q{n}"] = next((i for i, t in zip(ids, chunks, strict=True) if norm(gold) in norm(t)), None)
    assert got == want
    assert got == {q: via_cases[q] for q in got}
