"""Strict parsing of a reader's two-line output, run once per response at load time.

The retrieve-then-read lesson's ``parse_reader_output`` (R, stringr) is the reference: after
``str_trim``, an output must be exactly ``Answer: <text>`` then ``Sources: <ids>``; anything
else is a parse failure and the output is kept as it was. The views decide the action
(answer, refuse, flag_premise) from the parsed answer and the run's markers.
"""

from __future__ import annotations

import re
import unicodedata

import duckdb

from evalwh.text.textnorm import numbers

MARKER = re.compile(r"\[(\d+)\]")
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")
# the method's strict form of a trimmed output: one space after each colon; \n or \r\n between the lines
TWO_LINES = re.compile(r"Answer: ([^\r\n]+)\r?\nSources: ([^\r\n]+)")
NO_SOURCES = "none"
# the separators of Unicode's category Z (Zs, Zl, Zp)
SEPARATORS = " \xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
# what str_squish and str_split's "\\s" match: ICU's \s, [\t\n\f\r\p{Z}] (no \v, no U+0085)
ICU_SPACE = "\t\n\x0c\r" + SEPARATORS
# what stringr's str_trim removes: the Unicode White_Space characters, ICU's \s and \v and U+0085
# (Python's str.isspace() less the separators U+001C..U+001F, which are no White_Space)
WHITE_SPACE = ICU_SPACE + "\x0b\x85"
ICU_SPACE_RUN = re.compile(f"[{ICU_SPACE}]+")
SOURCE_SEPARATOR = re.compile(f"[{ICU_SPACE}]*,[{ICU_SPACE}]*")


def squish(text: str) -> str:
    """stringr's str_squish: each run of ICU white space made one space, then White_Space trimmed."""
    return ICU_SPACE_RUN.sub(" ", text).strip(WHITE_SPACE)


def parse_output(output: str) -> dict[str, object]:
    """``{"parse_ok", "answer", "sources"}``; a failure has parse_ok False, answer None and no sources.

    As the lesson's parser: the output, trimmed of White_Space (str_trim), must match TWO_LINES whole.
    The answer is squished (str_squish), and may be empty once squished. The sources are squished;
    ``none`` in any case, alone, means no sources; otherwise they split at commas with the white space
    around them, every item kept (``H1, , H2`` lists an empty id, which no cited check passes).
    """
    match = TWO_LINES.fullmatch(output.strip(WHITE_SPACE))
    if match is None:
        return {"parse_ok": False, "answer": None, "sources": []}
    answer = squish(match.group(1))
    listed = squish(match.group(2))
    if listed.lower() == NO_SOURCES:
        return {"parse_ok": True, "answer": answer, "sources": []}
    return {"parse_ok": True, "answer": answer, "sources": SOURCE_SEPARATOR.split(listed)}


def answer_numbers(answer: str | None, sources: list[str] | None) -> list[str]:
    r"""Numbers of an answer after the cited ids are removed from its text (so ``handbook-1`` adds no 1).

    An id is removed where it stands as a whole token, with no word character (Python's ``\w``) just
    before or after it, as the lesson's ``\bH\d{2}\b`` removes its ids: ``$1500`` cited as ``1``
    keeps its 1500. The longer ids go first; an empty id (``Sources: H08,``) removes nothing."""
    text = answer or ""
    for source in sorted((s for s in sources or [] if s), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(source)}(?!\w)", " ", text)
    return numbers(text)


def bracket_markers(text: str) -> list[str]:
    """The passage numbers of the ``[n]`` markers in ``text``, in order, as decimal text (``int(n)``
    written out: ``[007]`` is 7), so that a number of any size is kept as a citation number."""
    return [_decimal_text(n) for n in MARKER.findall(text)]


def _decimal_text(digits: str) -> str:
    """``str(int(digits))`` for a run of Unicode decimal digits of any length."""
    return "".join(str(unicodedata.decimal(ch)) for ch in digits).lstrip("0") or "0"


def bracket_numbers(text: str) -> list[str]:
    """Numbers of bracket-cited prose, the ``[n]`` markers removed first (so ``[7]`` adds no 7)."""
    return numbers(MARKER.sub(" ", text))


def bracket_sentences(text: str) -> list[dict[str, object]]:
    """Sentences of an answer, split at ``.``, ``!`` or ``?`` followed by white space, with their markers."""
    return [
        {"sentence": s, "markers": bracket_markers(s), "word_count": len(s.split()), "numbers": bracket_numbers(s)}
        for s in SENTENCE_SPLIT.split(text.strip())
        if s
    ]


def register_reader_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register the reader parsers for the loader.

    The types come from ``con``: DuckDB's module-level type constructors would open its default
    connection, a cost every evalwh process would pay at import.
    """
    # imported where a function is registered: a load that registers none never needs them
    from duckdb.func import FunctionNullHandling
    from duckdb.sqltypes import BOOLEAN, INTEGER, VARCHAR

    texts = con.list_type(VARCHAR)
    parsed = con.struct_type({"parse_ok": BOOLEAN, "answer": VARCHAR, "sources": texts})
    sentence = con.struct_type({"sentence": VARCHAR, "markers": texts, "word_count": INTEGER, "numbers": texts})
    con.create_function("bracket_markers", bracket_markers, [VARCHAR], texts, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("bracket_numbers", bracket_numbers, [VARCHAR], texts, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("bracket_sentences", bracket_sentences, [VARCHAR], con.list_type(sentence),
                        null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("parse_output", parse_output, [VARCHAR], parsed, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("answer_numbers", answer_numbers, [VARCHAR, texts], texts,
                        null_handling=FunctionNullHandling.SPECIAL)
