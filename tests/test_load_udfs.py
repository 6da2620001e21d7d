"""Every load normalises as the rules say, a capital sigma in any input file included.

The native macros do the work; a text with a capital sigma is left to the Python text functions
(Python lower-cases a final capital sigma to ς, DuckDB to σ). The expected values come from
tests/reference_rtr.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalwh.loader import load_run
from tests.conftest import rows, write_table
from tests.reference_rtr import first_sentence, normalize_answer, numbers, tokens

SIGMA = "ΟΔΟΣ"  # its last letter is a final sigma to Python: "οδος", where DuckDB's lower() gives "οδοσ"
PLACES = ("chunks", "questions", "acceptable", "responses")


def structured_run(folder: Path, sigma_in: str | None) -> dict[str, str]:
    """A one-question structured run, unicode tokenizer, with the capital-sigma word in one file (or none);
    returns its texts."""
    def text(place: str, plain: str, with_sigma: str) -> str:
        return with_sigma if sigma_in == place else plain

    texts = {
        "chunk": text("chunks", "Guest wifi opens at 9. Staff 12 only!", f"{SIGMA} wifi opens at 9. Staff 12 only!"),
        "question": text("questions", "When does guest wifi open?", f"When does {SIGMA} wifi open?"),
        "acceptable": text("acceptable", "at 9|9 am", f"at 9|{SIGMA} 9"),
        "answer": text("responses", "At 9, per wifi-1 (see wifi-12)!", f"At 9 {SIGMA}, per wifi-1 (see wifi-12)!"),
    }
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["wifi-1", texts["chunk"]], ["wifi-12", "Other 34."]])
    write_table(folder / "questions.csv", ["question_id", "question", "expected", "acceptable_answers"],
                [["q1", texts["question"], "answer", texts["acceptable"]]])
    write_table(folder / "responses.jsonl", ["question_id", "answer", "cited", "refused"],
                [["q1", texts["answer"], ["wifi-1", "wifi-12"], False]])
    (folder / "run.toml").write_text('[retrieval]\ntokenizer = "unicode"\n[reader]\nformat = "structured"\n',
                                     encoding="utf-8")
    return texts


@pytest.mark.parametrize("sigma_in", [None, *PLACES])
def test_every_stored_text_column_follows_the_rules_with_or_without_the_python_functions(
    db: Path, tmp_path: Path, sigma_in: str | None
) -> None:
    texts = structured_run(tmp_path / "run", sigma_in)
    load_run(db, tmp_path / "run", run="r")
    chunk_terms, first = rows(db, "SELECT t.text_uterms, t.first_sentence FROM chunk_texts AS t JOIN chunk_refs AS c "
                                  "USING (text_hash) WHERE c.chunk_id = 'wifi-1'")[0]
    assert chunk_terms == tokens(texts["chunk"], "unicode")
    assert first == first_sentence(texts["chunk"])
    question_terms, acceptable_tokens = rows(db, "SELECT question_terms, acceptable_tokens FROM questions")[0]
    assert question_terms == tokens(texts["question"], "unicode")
    assert acceptable_tokens == [normalize_answer(v).split() for v in texts["acceptable"].split("|") if v]
    answer_tokens, answer_numbers = rows(db, "SELECT answer_tokens, answer_numbers FROM responses")[0]
    assert answer_tokens == normalize_answer(texts["answer"]).split()
    # the cited ids are taken out of the answer first, the longer first: wifi-12 whole, then wifi-1
    assert answer_numbers == numbers(texts["answer"].replace("wifi-12", " ").replace("wifi-1", " "))
    assert answer_numbers == ["9"]
    # the extractive baseline's normal form of the rank-1 chunk's first sentence
    sentence_norms = {n for (n,) in rows(db, "SELECT sentence_norm FROM sentence_norms")}
    assert normalize_answer(first_sentence(texts["chunk"])) in sentence_norms
    if sigma_in is not None:  # the rule's own answer, which DuckDB's lower() alone would not give
        assert "οδος" in {*chunk_terms, *question_terms, *answer_tokens, *sum(acceptable_tokens, [])}


