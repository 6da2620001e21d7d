"""words, norm and digit runs: the UDFs as DuckDB runs them equal the chapter's Python on any Unicode."""

from __future__ import annotations

import re

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalwh.text.textnorm import register_udfs
from tests.reference import norm as ref_norm
from tests.reference import words as ref_words

any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)
tricky_text = st.lists(st.sampled_from(["İ", "\u212a", "ß", "ǅ", "٣", "١٤", "²", "Ⅻ", "a-b", "--", "x", "9", " ", "-", "\x00"]),
                       max_size=20).map("".join)


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    register_udfs(con)
    return con


@settings(max_examples=300, deadline=None)
@given(st.one_of(any_text, tricky_text))
def test_udfs_in_duckdb_match_the_reference(con: duckdb.DuckDBPyConnection, text: str) -> None:
    got_words, got_norm, got_digits = con.execute("SELECT words($t), norm($t), digit_runs($t)", {"t": text}).fetchall()[0]
    assert got_words == ref_words(text)
    assert got_norm == ref_norm(text)
    assert got_digits == re.findall(r"\d+", text)


def test_python_lower_is_the_reference_not_ascii(con: duckdb.DuckDBPyConnection) -> None:
    # 'İ'.lower() is 'i' + U+0307 and the Kelvin sign lowers to 'k': both become words
    assert con.execute("SELECT words('İS \u212aB')").fetchone()[0] == ["i", "s", "kb"]
    assert con.execute("SELECT digit_runs('a٣4 ²')").fetchone()[0] == ["٣4"]


def test_null_stays_null(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute("SELECT words(NULL), norm(NULL)").fetchone() == (None, None)


ASCII_NO_HYPHEN = [chr(c) for c in range(128) if chr(c) != "-"]


def test_ascii_text_without_a_hyphen_has_unicode_terms_equal_to_its_words() -> None:
    # the log import takes question_uterms from question_words for such text; every pair of characters
    from evalwh.text.textnorm import terms, words

    for a in ASCII_NO_HYPHEN:
        for b in ASCII_NO_HYPHEN:
            text = f"x{a}{b}Y9"
            assert terms(text, "unicode") == words(text), repr(text)
    assert terms("e-mail--x-", "unicode") != words("e-mail--x-")  # why a hyphen takes the long way


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(ASCII_NO_HYPHEN), max_size=40))
def test_ascii_terms_and_words_agree_on_any_text(text: str) -> None:
    from evalwh.text.textnorm import terms, words

    assert terms(text, "unicode") == words(text)


def test_imported_questions_have_the_reference_unicode_terms(tmp_path) -> None:
    import json

    from evalwh.logs import import_logs
    from evalwh.text.textnorm import terms, words

    questions = ["Plain ASCII question 12?", "e-mail--list- and more", "ΣΟΦΊΑ σοφία", "İstanbul café", "", None,
                 "Tab\there, new\nline", "UPPER lower 09"]
    log = tmp_path / "q.jsonl"
    log.write_text("".join(json.dumps({"request_id": f"r{i}", "question": q}) + "\n" for i, q in enumerate(questions)),
                   encoding="utf-8")
    db = tmp_path / "w.duckdb"
    import_logs(db, [log])
    with duckdb.connect(str(db), read_only=True) as con:
        got = dict((r[0], (r[1], r[2])) for r in con.execute(
            "SELECT request_id, question_words, question_uterms FROM log_requests").fetchall())
    for i, q in enumerate(questions):
        assert got[f"r{i}"] == (words(q or ""), terms(q or "", "unicode")), q
