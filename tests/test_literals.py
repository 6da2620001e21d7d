"""ragas's list cells: a Python list literal or a JSON list reads back as the list of texts it was written from."""

from __future__ import annotations

import json

import duckdb
from hypothesis import given
from hypothesis import strategies as st

from evalwh.logs.importing import register_log_functions
from evalwh.logs.literals import python_list

# texts of any Unicode character a UTF-8 file can hold (surrogates are none), those beyond U+FFFF among them
TEXTS = st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=8), max_size=4)


@given(items=TEXTS)
def test_a_list_reads_back_as_written_by_python_and_by_json(items: list[str]) -> None:
    assert python_list(repr(items)) == items  # what pandas's to_csv writes for a list cell
    assert python_list(json.dumps(items)) == items  # a character beyond U+FFFF as an escaped surrogate pair
    assert python_list(json.dumps(items, ensure_ascii=False)) == items


def test_an_escaped_surrogate_pair_is_its_character_and_half_a_pair_is_no_text() -> None:
    assert python_list('["\\ud83d\\ude00 ok", "b"]') == ["\N{GRINNING FACE} ok", "b"]
    assert python_list('["\\ud800\\udc00"]') == ["\U00010000"]
    for half in ('["\\ud83d"]', '["a\\ude00"]', '["\\ude00\\ud83d"]', "['ok', '\\ud800']"):
        assert python_list(half) is None, half
    assert python_list("['a', 1, None]") == ["a", "1", None]
    assert python_list("{'a': 1}") is None and python_list("not a list") is None and python_list(None) is None


def test_duckdb_reads_the_lists_as_the_function_returns_them() -> None:
    # before, DuckDB refused the function's result for a surrogate pair ("cannot encode str as UTF-8")
    con = duckdb.connect()
    register_log_functions(con, ())
    rows = con.execute("SELECT python_list(t) FROM (VALUES (1, ?), (2, ?), (3, ?)) AS v(n, t) ORDER BY n",
                       ['["\\ud83d\\ude00"]', '["\\ud83d"]', "['a', \"it's\"]"]).fetchall()
    assert rows == [(["\N{GRINNING FACE}"],), (None,), (["a", "it's"],)]
