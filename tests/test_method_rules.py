"""The retrieve-then-read and notes' rules exactly as their methods state them, one test per rule.

Expected values are worked out by hand from the rule text (in the comments), or come from
tests/reference_rtr.py, which transcribes the methods independently of evalwh.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evalwh.loader import load_run
from evalwh.text.reader_output import parse_output
from tests.conftest import rows, write_table
from tests.reference_rtr import parse as reference_parse

CHUNKS = [["h1", "Loan laptops must be returned within 14 days. The fee is 1500 dollars."],
          ["h2", "Guest wifi is in every room."]]


def rtr_run(folder: Path, questions: list[list[str]], responses: list[list[str]], toml: str = "") -> Path:
    write_table(folder / "chunks.csv", ["chunk_id", "text"], CHUNKS)
    write_table(folder / "questions.csv", ["question_id", "question", "expected", "gold_chunk_id", "acceptable_answers"],
                questions)
    if responses:
        write_table(folder / "responses.csv", ["question_id", "output"], responses)
    (folder / "run.toml").write_text(toml, encoding="utf-8")
    return folder


def test_flag_premise_output_scores_zero(db: Path, tmp_path: Path) -> None:
    # expected answer "14 days"; the reader flagged a premise and wrote the words of the answer after the
    # marker: the method scores only an answer, so EM 0 and F1 0 (not the partial F1 of "14 days")
    folder = rtr_run(tmp_path / "r", [["q1", "how long may I keep a loan laptop?", "answer", "h1", "14 days"]],
                     [["q1", "Answer: PREMISE NOT SUPPORTED: 14 days\nSources: h1"]])
    load_run(db, folder, run="r")
    assert rows(db, "SELECT action FROM reader_outputs") == [("flag_premise",)]
    assert rows(db, "SELECT exact_match, f1 FROM answer_scores") == [(0, 0.0)]


def test_f1_is_zero_when_a_side_has_no_tokens(db: Path, tmp_path: Path) -> None:
    # q1: the only variant "the" normalises to nothing and the answer "The." too: F1 0 (not 1), EM 0.
    # q2: "14 days| " drops the blank variant; the answer "14 days" matches: EM 1, F1 1.
    # q3: the answer "The." has no tokens against "14 days": EM 0, F1 0.
    folder = rtr_run(tmp_path / "r", [
        ["q1", "which article?", "answer", "h1", "the"],
        ["q2", "how long?", "answer", "h1", "14 days| "],
        ["q3", "how long?", "answer", "h1", "14 days"],
    ], [["q1", "Answer: The.\nSources: h1"], ["q2", "Answer: 14 days\nSources: h1"], ["q3", "Answer: The.\nSources: h1"]])
    load_run(db, folder, run="r")
    assert rows(db, "SELECT question_id, exact_match, f1 FROM answer_scores ORDER BY question_id") == [
        ("q1", 0, 0.0), ("q2", 1, 1.0), ("q3", 0, 0.0)]
    assert rows(db, "SELECT acceptable_answers FROM questions WHERE question_id = 'q2'") == [(["14 days"],)]


PARSES = [
    # (output, parse_ok, answer, sources), each by the regex ^Answer: ([^\r\n]+)\r?\nSources: ([^\r\n]+)$
    ("Answer: 14 days\nSources: h1", True, "14 days", ["h1"]),
    ("  Answer: 14 days\r\nSources: h1, h2  \n", True, "14 days", ["h1", "h2"]),  # trimmed; \r\n is a line break
    ("Answer: 14 days\rSources: h1", False, None, []),           # a lone \r is not
    ("Answer: 14 days\u2028Sources: h1", False, None, []),       # nor a Unicode line separator
    ("Answer:14 days\nSources: h1", False, None, []),            # one space after the colon, required
    ("Answer: 14 days\nSources:h1", False, None, []),
    ("Answer: \nSources: h1", False, None, []),                  # an empty answer
    ("Answer:    \nSources: h1", True, "", ["h1"]),              # blank once squished: an empty answer, parsed
    ("Answer: NOT  IN\tHANDBOOK \nSources: none", True, "NOT IN HANDBOOK", []),  # squished
    ("Answer: x\nSources: h1,,h2", True, "x", ["h1", "", "h2"]),  # empty items kept (str_split)
    ("Answer: x\nSources: H1, , H2", True, "x", ["H1", "", "H2"]),
    ("Answer: x\nSources: h1,", True, "x", ["h1", ""]),
    ("\x1cAnswer: x\nSources: h1", False, None, []),            # U+001C is no White_Space: str_trim keeps it
    ("Answer: x\nSources: h1\x1f", True, "x", ["h1\x1f"]),
    ("\u3000Answer: x\x85y\nSources: h1\u2028", True, "x\x85y", ["h1"]),  # trimmed; U+0085 is no ICU \s
    ("Answer: a\x0b\x0c b\nSources: h1", True, "a\x0b b", ["h1"]),  # \v is no ICU \s; \f and the space are
    ("Answer: x\nSources: None", True, "x", []),                 # none in any case means no sources
    ("Answer: x\nSources: NONE", True, "x", []),
    ("Answer: x\nSources: none, h1", True, "x", ["none", "h1"]),  # but only alone
    ("Answer: x\nSources: h1\nmore", False, None, []),           # a third line
]


def test_strict_parser_by_hand() -> None:
    for output, ok, answer, sources in PARSES:
        assert parse_output(output) == {"parse_ok": ok, "answer": answer, "sources": sources}, repr(output)


pieces = st.sampled_from(["Answer:", "Answer: ", "Sources:", "Sources: ", "\n", "\r\n", "\r", "\u2028", " ", "  ",
                          "x", "14 days", "h1", ",", ", ", "none", "None", "NOT IN HANDBOOK", "\t", "\x85",
                          "\x0b", "\x1c", "\x1f", "\u3000", "\xa0", "\u200b", " , "])


@settings(max_examples=500, deadline=None)
@given(st.lists(pieces, max_size=12).map("".join))
def test_strict_parser_agrees_with_the_regex(output: str) -> None:
    ok, answer, sources = reference_parse(output)
    assert parse_output(output) == {"parse_ok": ok, "answer": answer, "sources": sources}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), st.text(max_size=15))
def test_strict_parser_on_arbitrary_text(answer: str, sources: str) -> None:
    output = f"Answer: {answer}\nSources: {sources}"
    ok, parsed, listed = reference_parse(output)
    assert parse_output(output) == {"parse_ok": ok, "answer": parsed, "sources": listed}


def test_abstain_marker_after_squishing(db: Path, tmp_path: Path) -> None:
    folder = rtr_run(tmp_path / "r", [["u1", "parking?", "refuse", "", ""]],
                     [["u1", "Answer: NOT  IN HANDBOOK\nSources: none"]])
    load_run(db, folder, run="r")
    assert rows(db, "SELECT answer, action FROM reader_outputs") == [("NOT IN HANDBOOK", "refuse")]


def bracket_run(folder: Path, answers: list[list[str]]) -> Path:
    write_table(folder / "chunks.csv", ["chunk_id", "text"], CHUNKS)
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [[q, "?", "answer"] for q, _ in answers])
    write_table(folder / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"],
                [[q, "h1", "1", ""] for q, _ in answers])
    write_table(folder / "responses.csv", ["question_id", "output"], answers)
    (folder / "run.toml").write_text('[reader]\nformat = "bracket"\n', encoding="utf-8")
    return folder


def test_bracket_marker_of_any_size_and_blank_answers(db: Path, tmp_path: Path) -> None:
    # one passage shown: [1] is valid; [99999999999] and a 60-digit marker are invalid citation numbers;
    # [007] is passage 7, invalid; a blank or empty answer has no sentence, so nothing is wrong with it
    huge = "9" * 60
    folder = bracket_run(tmp_path / "b", [
        ["big", "Laptops go back in 14 days [1][99999999999]."],
        ["zero", "Laptops go back in 14 days [007]."],
        ["huger", f"Fee [{huge}]."],
        ["blank", "   "],
        ["empty", ""],
    ])
    load_run(db, folder, run="b")
    assert rows(db, "SELECT question_id, invalid_citations, sentences_without_citation, ok FROM answer_citation_check "
                    "ORDER BY question_id") == [
        ("big", ["99999999999"], 0, False),
        ("blank", [], 0, True),
        ("empty", [], 0, True),
        ("huger", [huge], 0, False),
        ("zero", ["7"], 0, False),
    ]


def test_structured_refused_flag_decides_refusal(db: Path, tmp_path: Path) -> None:
    # r1 says refused and writes an answer anyway: a refusal. r2 writes the refusal phrase but refused is
    # false: an answer, and a misuse of the phrase. r3 refused with the phrase: a refusal, no misuse.
    folder = tmp_path / "s"
    write_table(folder / "questions.csv", ["question_id", "question", "expected"],
                [["r1", "?", "refuse"], ["r2", "?", "refuse"], ["r3", "?", "answer"]])
    phrase = "That does not appear from the material."
    write_table(folder / "responses.jsonl", ["question_id", "answer", "cited", "refused"], [
        ["r1", "Sure: 14 days.", [], True], ["r2", phrase, [], False], ["r3", phrase, [], True]])
    (folder / "run.toml").write_text('[reader]\nformat = "structured"\n', encoding="utf-8")
    load_run(db, folder, run="s")
    assert rows(db, "SELECT question_id, action FROM reader_outputs ORDER BY question_id") == [
        ("r1", "refuse"), ("r2", "answer"), ("r3", "refuse")]
    assert rows(db, "SELECT rightly, wrongly, missed, phrase_misuse, phrase_misuse_ids FROM refusal_use") == [
        (1, 1, 1, 1, ["r2"])]


def test_extractive_baseline_matches_character_substrings(db: Path, tmp_path: Path) -> None:
    # h1's first sentence normalises to "loan laptops must be returned within 14 days"; its second holds 1500.
    # q1 "$150": normalised "150" is not in the first sentence. q2 "within 14 day": a character substring
    # ("14 day" inside "14 days"), which a whole-token match would reject. q3 "The Laptops": "laptops".
    folder = rtr_run(tmp_path / "r", [
        ["q1", "loan laptops fee", "answer", "h1", "$150"],
        ["q2", "loan laptops returned", "answer", "h1", "within 14 day"],
        ["q3", "loan laptops", "answer", "h1", "The Laptops"],
    ], [])
    load_run(db, folder, run="r")
    assert rows(db, "SELECT question_id, sentence, contains_acceptable FROM extractive_baseline ORDER BY question_id") == [
        ("q1", "Loan laptops must be returned within 14 days.", False),
        ("q2", "Loan laptops must be returned within 14 days.", True),
        ("q3", "Loan laptops must be returned within 14 days.", True),
    ]


def test_extractive_baseline_150_in_1500(db: Path, tmp_path: Path) -> None:
    # the example: a sentence holding 1500 contains the variant $150 (normalised 150)
    folder = tmp_path / "r"
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["f1", "The fee is 1500 dollars. Pay at the desk."]])
    write_table(folder / "questions.csv", ["question_id", "question", "expected", "acceptable_answers"],
                [["q1", "what is the fee?", "answer", "$150"]])
    load_run(db, folder, run="r")
    assert rows(db, "SELECT sentence, contains_acceptable FROM extractive_baseline") == [
        ("The fee is 1500 dollars.", True)]
