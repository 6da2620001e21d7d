"""words, norm and digit runs: the UDFs as DuckDB runs them equal the chapter's Python on any Unicode."""

from __future__ import annotations

import re

import duckdb
import pytest
from evalwh.textnorm import register_udfs
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference import norm as ref_norm
from tests.reference import words as ref_words

any_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)
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
    got_words, got_norm, got_digits = con.execute("SELECT words($t), norm($t), digit_runs($t)", {"t": text}).fetchone()
    assert got_words == ref_words(text)
    assert got_norm == ref_norm(text)
    assert got_digits == re.findall(r"\d+", text)


def test_python_lower_is_the_reference_not_ascii(con: duckdb.DuckDBPyConnection) -> None:
    # 'İ'.lower() is 'i' + U+0307 and the Kelvin sign lowers to 'k': both become words
    assert con.execute("SELECT words('İS \u212aB')").fetchone()[0] == ["i", "s", "kb"]
    assert con.execute("SELECT digit_runs('a٣4 ²')").fetchone()[0] == ["٣4"]


def test_null_stays_null(con: duckdb.DuckDBPyConnection) -> None:
    assert con.execute("SELECT words(NULL), norm(NULL)").fetchone() == (None, None)
