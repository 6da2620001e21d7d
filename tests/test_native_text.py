"""The native SQL text macros equal the Python reference on every code point, on pairs, and on arbitrary text.

The reference is tests/reference.py's transcription of the chapter's Python (plus the
retrieve-then-read helpers of tests/reference_rtr.py), not evalwh's own textnorm.
"""

from __future__ import annotations

import re
import sys

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalwh.text.nativetext import register_native_macros
from evalwh.text.textnorm import register_udfs
from evalwh.text.unicodeclasses import PATTERNS, computed_spans, spans
from tests.reference import norm, words
from tests.reference_rtr import first_sentence, normalize_answer, numbers, tokens

NATIVE = (
    "SELECT native_words(s), native_join(native_words(s)), native_digit_runs(s), native_numbers(s), "
    "native_first_sentence(s), native_uterms(s), native_uterms_given(s, native_words(s)) FROM {source}"
)


def digit_runs(text: str) -> list[str]:
    # the chapter: re.findall(r"\d+", text)
    return re.findall(r"\d+", text)


def reference(text: str) -> tuple:
    return (words(text), norm(text), digit_runs(text), numbers(text), first_sentence(text), tokens(text, "unicode"),
            tokens(text, "unicode"))


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    register_udfs(connection)  # the unicode terms of a text with a capital sigma are Python's
    register_native_macros(connection)
    return connection


def code_points() -> list[int]:
    return [c for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF]


# the character alone, inside a word, after a hyphen (or a space: native_words takes another path for a
# text without a hyphen), before and after digits, ending a sentence
CONTEXTS = ("-", " ")


def context(ch: str, joint: str) -> str:
    return f"x{ch}Y{joint}{ch}7{ch}. {ch}1{ch}"


def compare(con: duckdb.DuckDBPyConnection, texts: list[str]) -> list[tuple[str, tuple, tuple]]:
    got = con.execute(NATIVE.format(source="(SELECT unnest(CAST(? AS VARCHAR[])) AS s)"), [texts]).fetchall()
    return [(t, g, reference(t)) for t, g in zip(texts, got, strict=True) if g != reference(t)]


@pytest.mark.parametrize("joint", CONTEXTS)
def test_every_code_point_in_context(con: duckdb.DuckDBPyConnection, joint: str) -> None:
    # the texts are built in SQL from chr(i), and rebuilt in Python from the same i
    rows = con.execute(
        NATIVE.replace("SELECT ", "SELECT i, s, ", 1).format(
            source=f"(SELECT i, 'x' || chr(i) || 'Y{joint}' || chr(i) || '7' || chr(i) || '. ' || chr(i) || '1' || chr(i) "
                   "AS s FROM (SELECT CAST(range AS INTEGER) AS i FROM range(0, 1114112)) "
                   "WHERE i < 55296 OR i > 57343) ORDER BY i")
    ).fetchall()
    assert len(rows) == len(code_points())
    wrong = []
    for i, text, *got in rows:
        assert text == context(chr(i), joint)
        if tuple(got) != reference(text):
            wrong.append(hex(i))
    assert wrong == []


def test_pairs_of_characters_where_engines_could_differ(con: duckdb.DuckDBPyConnection) -> None:
    lowered_to_ascii = [c for c in code_points() if any(ch.isascii() for ch in chr(c).lower())]
    special = [0x130, 0x307, 0x3A3, 0x3C2, 0x2D, 0x20, 0x2E, 0x0A, 0x0D, 0x5F, 0x85, 0xA0, 0x2028,
               0x660, 0xFF10, 0x1D7CE, 0xB2, 0x2160]
    chars = sorted(set(lowered_to_ascii + special))
    texts = [chr(a) + chr(b) for a in chars for b in chars]
    assert compare(con, texts) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=20))
def test_arbitrary_unicode_text(con: duckdb.DuckDBPyConnection, texts: list[str]) -> None:
    texts = [t.encode("utf-8", "ignore").decode("utf-8") for t in texts]
    texts = ["".join(ch for ch in t if not 0xD800 <= ord(ch) <= 0xDFFF) for t in texts]
    assert compare(con, texts) == []


def test_known_differences_are_handled(con: duckdb.DuckDBPyConnection) -> None:
    # U+0130 lower-cases to i + U+0307 in Python, so it splits a word; the Arabic-Indic digits are digits
    assert compare(con, ["İstanbul", "Kelvin", "ab\u0661\u0662 3", "v2 2.5 x_7", "First. Second", "A?\u2028B",
                         "ΟΔΟΣ ΣΑΣ", "Σ-1"]) == []
    # first sentences: led by white space, a mark first, a mark not followed by white space, no mark
    assert compare(con, ["  . x", "\u2028 Hi! there", "no mark  ", " . ", "a.b. c", "?", "x.\u00a0y", " 2.5 m? ok",
                         "\n\tEnd.", "..", ". ", "a .b"]) == []
    # words, piece by space-separated piece: runs of spaces, spaces at either end, hyphens at a piece's edges
    assert compare(con, ["a  b", " lead", "trail ", "a - b", "--x-- y-", "e-mail  list", "", " ", "İ İx", "x.y z,w"]) == []
    # numbers: at the start, after a hyphen or an underscore, after a letter (none), digits of other scripts
    assert compare(con, ["1-2", "-1-2", "x_7", "a1 2", "\uff11\uff12 3", "\u0663a 4", "7", "é7 _8_ 9."]) == []
    got = con.execute("SELECT native_words('İstanbul-2'), native_numbers('v2 2.5 _7')").fetchone()
    assert got == (["i", "stanbul-2"], ["2", "5", "7"])


def test_unicode_terms_reuse_the_words_only_where_they_agree(con: duckdb.DuckDBPyConnection) -> None:
    # native_uterms_given takes the words for ASCII text without a hyphen: every pair of ASCII characters,
    # and texts on both sides of the line (a hyphen, a letter outside ASCII, a capital sigma)
    ascii_chars = [chr(c) for c in range(128)]
    texts = [f"Ab{a}{b}9z" for a in ascii_chars for b in ascii_chars]
    texts += ["e-mail--list-", "café Ünïcode", "ΣΟΦΊΑ", "İstanbul", "", "-", "a-b", "x\u00a0y", "K\u212a"]
    assert compare(con, texts) == []


def test_shipped_classes_are_this_pythons() -> None:
    # the ranges shipped for this Python's Unicode version are the ones its re matches; the shipped
    # versions cover Python 3.11 to 3.13
    import json
    import unicodedata

    from evalwh.text.unicodeclasses import DATA

    shipped = json.loads(DATA.read_text(encoding="utf-8"))
    assert {"14.0.0", "15.0.0", "15.1.0"} <= set(shipped)
    for pattern in PATTERNS:
        assert spans(pattern) == computed_spans(pattern)
        if unicodedata.unidata_version in shipped:
            assert [tuple(s) for s in shipped[unicodedata.unidata_version][pattern]] == list(computed_spans(pattern))
    assert (0x30, 0x39) in spans(r"\d") and any(first <= 0x20 <= last for first, last in spans(r"\s"))


# SQuAD's normalisation: the answer's tokens, its normal form, and (over |-separated variants) both
NATIVE_SQUAD = ("SELECT native_squad_tokens(s), native_squad_normalize(s), native_variants(s), "
                "native_squad_variants(s), native_squad_variant_norms(s, native_squad_variants(s)) FROM {source}")


def squad_reference(text: str) -> tuple:
    kept = [v.strip() for v in text.split("|") if v.strip()]  # the method's acceptable answers
    scored = [v for v in text.split("|") if v != ""]  # the lesson's variants[nzchar(variants)]: blank ones too
    return (normalize_answer(text).split(), normalize_answer(text), kept,
            [normalize_answer(v).split() for v in scored], [normalize_answer(v) for v in kept])


def compare_squad(con: duckdb.DuckDBPyConnection, texts: list[str]) -> list[tuple[str, tuple, tuple]]:
    got = con.execute(NATIVE_SQUAD.format(source="(SELECT unnest(CAST(? AS VARCHAR[])) AS s)"), [texts]).fetchall()
    return [(t, g, squad_reference(t)) for t, g in zip(texts, got, strict=True) if g != squad_reference(t)]


def squad_context(ch: str) -> str:
    # the character as an article's neighbour on each side, inside a word, alone and at the ends
    return f"{ch}a{ch}The{ch}x{ch}an an{ch} the.{ch}B{ch}a"


def test_squad_normalisation_of_every_code_point(con: duckdb.DuckDBPyConnection) -> None:
    # one answer's tokens and normal form (the variants of a text apply the same macros to its parts)
    texts = [squad_context(chr(c)) for c in code_points()]
    got = con.execute("SELECT native_squad_tokens(s), native_squad_normalize(s) FROM (SELECT unnest(CAST(? AS VARCHAR[])) "
                      "AS s)", [texts]).fetchall()
    wrong = []
    for text, (tokens_got, normal_got) in zip(texts, got, strict=True):
        normal = normalize_answer(text)
        if (tokens_got, normal_got) != (normal.split(), normal):
            wrong.append(hex(ord(text[0])))
    assert wrong == []


def test_squad_normalisation_of_pairs_and_chains(con: duckdb.DuckDBPyConnection) -> None:
    # characters whose lower case, category or \w-ness may differ between the engines, in pairs around articles
    special = [0x130, 0x307, 0x301, 0x3A3, 0x5F, 0x2D, 0x20, 0x0A, 0x85, 0xA0, 0x1C, 0x2028, 0x660, 0xB2,
               0x2160, 0x200D, 0x24B6, 0xFF21, 0x41, 0x61, 0x2E, 0x7C]
    texts = [f"{chr(a)}{chr(b)}the{chr(b)}{chr(a)}a|{chr(a)}an" for a in special for b in special]
    # runs of articles, which one pass of the regex cannot take
    texts += ["a a a a a", "the an a the", "a  a\ta\na", "aa a an ann the thee", "A.A,A;THE", "a|a |the| x"]
    assert compare_squad(con, texts) == []


def test_squad_normalisation_of_every_ascii_pair(con: duckdb.DuckDBPyConnection) -> None:
    # an ASCII text takes the ASCII path (ASCII's classes): every pair of ASCII characters around articles
    # and inside a word, once as one answer and once as variants; then one character more makes the same
    # text take the Unicode path, with the same result
    pairs = [chr(a) + chr(b) for a in range(128) for b in range(128)]
    texts = [f"{p}a{p}The{p}x{p[::-1]}an|{p}the b{p}" for p in pairs]
    assert compare_squad(con, texts) == []
    assert compare_squad(con, [t + "\u00e9" for t in texts[::37]]) == []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.one_of(st.sampled_from(["a", "an", "the", " ", "|", ".", "_", "\u0301", "Σ", "İ"]),
                                    st.characters(exclude_categories=["Cs"])), max_size=30).map("".join),
                min_size=1, max_size=20))
def test_squad_normalisation_of_arbitrary_text(con: duckdb.DuckDBPyConnection, texts: list[str]) -> None:
    assert compare_squad(con, texts) == []


def test_variant_normal_forms_from_their_tokens_at_every_separator_and_control(con: duckdb.DuckDBPyConnection) -> None:
    # native_squad_variant_norms joins each variant's tokens instead of normalising the stripped variant:
    # every character that is white space, a separator or a control, at a variant's edges and alone in one
    import unicodedata

    edges = [chr(c) for c in range(0x110000)
             if chr(c).isspace() or unicodedata.category(chr(c)) in ("Zs", "Zl", "Zp", "Cc", "Cf")]
    texts = [f"{e}The x{e}|{e}|{e}{e}a|{e}an{e}|y{e}" for e in edges]
    assert len(edges) > 200 and compare_squad(con, texts) == []


def answer_numbers_reference(answer: str, cited: list[str]) -> list[str]:
    # the support screen's numbers of an answer: each cited id that is not empty replaced by a space where it
    # stands as a whole token (the characters beside it, in the text as it was before this id's turn, are no
    # word characters: str.isalnum() or "_"), the longer ids first (ids of one length in their listed order),
    # then the digit runs not after a letter or digit. A scan, not a regex.
    def word(ch: str) -> bool:
        return ch.isalnum() or ch == "_"

    for cited_id in sorted((c for c in cited if c), key=len, reverse=True):
        out, i = [], 0
        while i < len(answer):
            end = i + len(cited_id)
            if (answer.startswith(cited_id, i) and (i == 0 or not word(answer[i - 1]))
                    and (end == len(answer) or not word(answer[end]))):
                out.append(" ")
                i = end
            else:
                out.append(answer[i])
                i += 1
        answer = "".join(out)
    return numbers(answer)


PIECES = st.sampled_from(["a", "1", "2", "-", " ", "٣", "é", "Σ", "H", "x1", "1b", "a1", "_", ".", "\u0301"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join),
       st.lists(st.just("") | st.lists(PIECES, min_size=1, max_size=4).map("".join), max_size=5))
def test_answer_numbers_without_the_cited_ids(con: duckdb.DuckDBPyConnection, answer: str, cited: list[str]) -> None:
    # ids made of the answer's own pieces, so they overlap it, each other, and tie in length
    from evalwh.text.reader_output import answer_numbers

    got = con.execute("SELECT native_answer_numbers(?, ?)", [answer, cited]).fetchall()[0][0]
    assert got == answer_numbers_reference(answer, cited) == answer_numbers(answer, cited)


def test_answer_numbers_of_ids_that_overlap() -> None:
    con = duckdb.connect()
    register_native_macros(con)
    cases = [
        ("a12 7", ["a1", "12"], ["7"]),              # neither id stands alone in a12: nothing removed
        ("a1 12 7", ["a1", "12"], ["7"]),            # both do
        ("x H12 and H1 2", ["H1", "H12"], ["2"]),    # H1 inside H12 is no whole token
        ("12 ١٢", [], ["12", "١٢"]),
        ("none", None, []),
        ("The fee is $150.", ["H08", ""], ["150"]),  # Sources: H08, lists an empty id: it removes nothing
        ("$1500 a year", ["1"], ["1500"]),           # cited as 1: the 1 of 1500 is no whole token
        ("1 1 1", ["1"], []),                        # every occurrence, next to each other
        ("x_1 1", ["1"], ["1"]),                     # _ is a word character, as in the lesson's \b
    ]
    for answer, cited, want in cases:
        assert con.execute("SELECT native_answer_numbers(?, ?)", [answer, cited]).fetchall()[0][0] == want
        if cited is not None:
            assert answer_numbers_reference(answer, cited) == want
