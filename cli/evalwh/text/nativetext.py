"""The chapter's text functions as native DuckDB SQL, with Python's meaning.

``textnorm`` holds the reference semantics (Python's ``lower()`` and ``re``).
Calling it once per row through a Python UDF is what made loads slow, so the
loader uses the SQL macros defined here instead, wherever SQL can give the
identical result:

- ``words``: DuckDB's ``lower()`` agrees with Python's on every code point once
  ``İ`` (U+0130) is first rewritten to Python's ``i`` + U+0307; the one other
  difference is Python's context-dependent final sigma, which only the unicode
  terms can see, so a text holding a capital sigma is left to the Python UDF.
- ``\\d``, ``\\s`` and ``[^\\W_]`` (letters and digits) are Unicode classes whose
  tables differ between Python and RE2 releases, so the RE2 classes are built
  here from this Python's own ``re``: a character is in the class exactly when
  Python's pattern matches it.
- RE2 has no look-behind; ``numbers`` consumes the one character before a digit
  run instead (then drops it), which gives the same runs because a digit run is maximal.
- SQuAD's normalisation (``squad_normalize``) deletes every character of the categories P and
  S (a class built from this Python's ``unicodedata``), then replaces the words a, an, the
  between Python's ``\\b`` (Unicode ``\\w``; RE2's ``\\b`` is ASCII's) by a space: RE2 matches
  the article with the character on either side, and a second pass takes the articles whose
  side the first pass consumed ("a a a"). ``str.split()`` splits at Python's ``\\s``.

tests/test_native_text.py runs every code point, and pairs of the characters where
the engines could disagree, through both. The macros live on the loading
connection only: no view calls them.
"""

from __future__ import annotations

from functools import lru_cache

import duckdb

from evalwh.sqltext import sql_literal
from evalwh.text.unicodeclasses import spans

WORD_REGEX = r"[a-z0-9]+(?:-[a-z0-9]+)*"
# Python's lower() turns U+0130 into "i" + U+0307; DuckDB's into "i" alone
DOTTED_CAPITAL_I = "\u0130"
PYTHON_LOWER_DOTTED_I = "i\u0307"
CAPITAL_SIGMA = "\u03a3"


@lru_cache(maxsize=None)
def re2_class(python_pattern: str, negate: bool = False, ascii_only: bool = False) -> str:
    """An RE2 character class matching exactly the characters Python's one-character ``python_pattern`` matches;
    with ``ascii_only``, its ASCII characters (and negated, every other character: in an ASCII text, every
    other ASCII character)."""
    top = 0x7F if ascii_only else 0x10FFFF
    runs = [(first, min(last, top)) for first, last in spans(python_pattern) if first <= top]
    parts = [f"\\x{{{first:X}}}" if first == last else f"\\x{{{first:X}}}-\\x{{{last:X}}}" for first, last in runs]
    return ("[^" if negate else "[") + "".join(parts) + "]"


@lru_cache(maxsize=1)
def macro_definitions() -> dict[str, str]:
    """Macro name -> ``(t) AS <expression>`` for each native text function; a text with a capital sigma
    goes to the Python UDF of the same rule (the connection must have them: evalwh.text.textnorm)."""
    digit = re2_class(r"\d")
    alnum = re2_class(r"[^\W_]")
    not_alnum = re2_class(r"[^\W_]", negate=True)
    space = re2_class(r"\s")
    not_space = re2_class(r"\s", negate=True)
    spaces = "".join(chr(c) for first, last in spans(r"\s") for c in range(first, last + 1))  # what strip() removes
    not_word = re2_class(r"\w", negate=True)
    # an article between two \b: the character before it (or the start) and after it (or the end) are kept
    article = sql_literal(f"(^|{not_word})(?:a|an|the)({not_word}|$)")
    lowered = f"lower(replace(t, {sql_literal(DOTTED_CAPITAL_I)}, {sql_literal(PYTHON_LOWER_DOTTED_I)}))"
    marks = sql_literal(re2_class(r"[\p{P}\p{S}]"))  # what SQuAD deletes, as punctuation, from every script
    no_marks = f"regexp_replace({lowered}, {marks}, '', 'g')"
    kept = "'\\1 \\2'"  # the characters around an article, a space between them
    no_articles = f"regexp_replace(regexp_replace({no_marks}, {article}, {kept}, 'g'), {article}, {kept}, 'g')"
    unicode_terms = "terms(t, 'unicode')"
    # the same steps on an ASCII text, with ASCII's classes: small classes that RE2 matches faster
    ascii_not_word = re2_class(r"\w", negate=True, ascii_only=True)
    ascii_marks = sql_literal(re2_class(r"[\p{P}\p{S}]", ascii_only=True))
    ascii_spaces = sql_literal(re2_class(r"\s", ascii_only=True) + "+")
    ascii_article = sql_literal(f"(^|{ascii_not_word})(?:a|an|the)({ascii_not_word}|$)")
    ascii_no_marks = f"regexp_replace(lower(t), {ascii_marks}, '', 'g')"
    ascii_no_articles = (f"regexp_replace(regexp_replace({ascii_no_marks}, {ascii_article}, {kept}, 'g'), "
                         f"{ascii_article}, {kept}, 'g')")

    def strip(v: str) -> str:
        # Python's strip(): DuckDB's trim by a list of characters reads that list again for every text, so
        # it runs only on a text that starts or ends with white space (an empty one: trimmed, still empty)
        listed = sql_literal(spaces)
        return (f"CASE WHEN contains({listed}, left({v}, 1)) OR contains({listed}, right({v}, 1)) "
                f"THEN trim({v}, {listed}) ELSE {v} END")

    pieces = "list_filter(string_split(t, '|'), lambda v: v <> '')"  # a text's |-separated parts, the empty ones dropped
    first_mark = f"(?s)(?:[.!?]|{not_space}.*?[.!?])(?:{space}|$)"
    return {
        # words(t): the chapter's words, after Python's lower(). A character outside [a-z0-9-] is never part of
        # a word, so each such character (but the space) is first made a space: the words stay the same, and
        # are those of the text's space-separated pieces in turn. Without a hyphen a piece is one word whole;
        # RE2 extracts the words only from the pieces with a hyphen (a match extraction per word is costly)
        "native_words": (
            f"(t) AS list_transform([regexp_replace(lower(replace(t, {sql_literal(DOTTED_CAPITAL_I)}, "
            f"{sql_literal(PYTHON_LOWER_DOTTED_I)})), '[^a-z0-9 -]', ' ', 'g')], lambda x: CASE "
            "WHEN NOT contains(x, '-') THEN list_filter(string_split(x, ' '), lambda p: p <> '') "
            "ELSE flatten(list_transform(list_filter(string_split(x, ' '), lambda p: p <> ''), lambda p: CASE "
            f"WHEN contains(p, '-') THEN regexp_extract_all(p, {sql_literal(WORD_REGEX)}) ELSE [p] END)) END)[1]"
        ),
        # norm(t) from its words: joined by single spaces (no words: the empty text, which DuckDB 1.4's
        # array_to_string gives as NULL)
        "native_join": "(w) AS CASE WHEN len(w) = 0 THEN '' ELSE array_to_string(w, ' ') END",
        # terms(t, 'unicode'): [\p{L}\p{N}][\p{L}\p{N}-]* after Python's lower(). Python lower-cases a
        # capital sigma by its context (final sigma), which DuckDB does not: such texts go to the Python UDF
        # terms, which the connection must have registered (evalwh.text.textnorm.register_udfs)
        "native_uterms": f"(t) AS CASE WHEN contains(t, {sql_literal(CAPITAL_SIGMA)}) "
                         f"THEN {unicode_terms} "
                         f"ELSE regexp_extract_all(lower(replace(t, {sql_literal(DOTTED_CAPITAL_I)}, "
                         f"{sql_literal(PYTHON_LOWER_DOTTED_I)})), {sql_literal(alnum + '(?:' + alnum + '|-)*')}) END",
        # terms(t, 'unicode') given w = words(t): on ASCII text without a hyphen the two tokenizers agree
        # (runs of [a-z0-9] after lower()), so w is reused and the unicode regex runs only where they may not
        "native_uterms_given": "(t, w) AS CASE WHEN strlen(t) = length(t) AND NOT contains(t, '-') THEN w "
                               "ELSE native_uterms(t) END",
        # digit_runs(t): Python's \d+
        "native_digit_runs": f"(t) AS regexp_extract_all(t, {sql_literal(digit + '+')})",
        # numbers(t): Python's (?<![^\W_])\d+. Each match is a digit run at the start or one character that is
        # no letter or digit and then a digit run; that character is dropped (whole matches only: a capture
        # group over these large classes costs RE2 twice the time)
        "native_numbers": (
            f"(t) AS list_transform(regexp_extract_all(t, {sql_literal('(?:^|' + not_alnum + ')' + digit + '+')}), "
            f"lambda m: CASE WHEN regexp_full_match(m, {sql_literal(digit + '+')}) THEN m ELSE substr(m, 2) END)"
        ),
        # squad_tokens(t) of an ASCII text (strlen(t) = length(t): one byte per character), where the steps
        # below need only ASCII's classes
        "native_ascii_squad_tokens": (
            f"(t) AS list_filter(regexp_split_to_array({ascii_no_articles}, {ascii_spaces}), "
            "lambda p: p <> '')"
        ),
        # squad_tokens(t): the words of SQuAD's normal form (lower-case, P and S deleted, no article). Python
        # lower-cases a capital sigma by its context, as DuckDB does not: such texts go to the Python UDF
        "native_squad_tokens": (
            "(t) AS CASE WHEN strlen(t) = length(t) THEN native_ascii_squad_tokens(t) "
            f"WHEN contains(t, {sql_literal(CAPITAL_SIGMA)}) "
            "THEN squad_tokens(t) "
            f"ELSE list_filter(regexp_split_to_array({no_articles}, {sql_literal(space + '+')}), lambda p: p <> '') END"
        ),
        # squad_normalize(t): those words joined by single spaces
        "native_squad_normalize": "(t) AS native_join(native_squad_tokens(t))",
        # variants(t): split at |, each stripped as Python's strip() does, the blank ones dropped
        "native_variants": (
            f"(t) AS list_filter(list_transform(string_split(t, '|'), lambda v: {strip('v')}), "
            "lambda v: v <> '')"
        ),
        # squad_variants(t): the tokens of each |-separated variant but the empty ones (blank ones kept); the
        # variants of an ASCII text are ASCII, so one test picks the ASCII path for all of them
        "native_squad_variants": (
            f"(t) AS CASE WHEN strlen(t) = length(t) THEN list_transform({pieces}, lambda v: native_ascii_squad_tokens(v)) "
            f"ELSE list_transform({pieces}, lambda v: native_squad_tokens(v)) END"
        ),
        # squad_variant_norms(t), given k = squad_variants(t): stripping a variant changes none of its tokens, so the
        # normal form of each non-blank variant is its tokens joined by single spaces, and no regex runs again
        "native_squad_variant_norms": (
            f"(t, k) AS list_transform(list_filter(list_zip({pieces}, k), "
            f"lambda p: {strip('p[1]')} <> ''), lambda p: native_join(p[2]))"
        ),
        # answer_numbers(a, s): numbers(a) once each cited id in s that is not empty, the longest first (in
        # their order among ids of one length, as Python's stable sort keeps them), is replaced by a space
        # where it stands as a whole token (no character of Python's \w before or after it). RE2 has no
        # look-around: the id is matched with the character on either side, kept, and a second pass takes
        # the occurrences whose side the first pass consumed ("1 1")
        "native_answer_numbers": (
            "(a, s) AS native_numbers(list_reduce(list_concat([coalesce(a, '')], list_transform(list_sort("
            "list_transform(list_filter(coalesce(s, CAST([] AS VARCHAR[])), lambda x: x <> ''), "
            "lambda x, i: {'key': -length(x), 'at': i, 'id': x})), "
            f"lambda e: '(^|{not_word})' || regexp_escape(e.id) || '({not_word}|$)')), "
            "lambda text, pattern: regexp_replace(regexp_replace(text, pattern, '\\1 \\2', 'g'), pattern, "
            "'\\1 \\2', 'g')))"
        ),
        # first_sentence(t): up to the first . ! ? followed by white space or the end, then Python's strip().
        # The regex's match starts at the first character that is no white space and ends at the first such
        # mark (plus the white space after it, dropped here); no mark: the whole text, stripped. Only the
        # whole match is taken (a capture group would make RE2 re-scan the text), and the slow trim by a list of
        # white space serves only texts without a mark
        "native_first_sentence": (
            f"(t) AS list_transform([regexp_extract(t, {sql_literal(first_mark)})], lambda m: CASE "
            f"WHEN m = '' THEN trim(t, {sql_literal(spaces)}) WHEN right(m, 1) IN ('.', '!', '?') THEN m "
            "ELSE substr(m, 1, length(m) - 1) END)[1]"
        ),
    }


def register_native_macros(con: duckdb.DuckDBPyConnection) -> None:
    """Define the native text macros as temporary macros of ``con`` (the loading connection), which must
    have the Python UDFs they call for a text with a capital sigma (evalwh.text.textnorm.register_udfs)."""
    # one call for all of them: DuckDB runs the statements in turn, without a round trip each
    con.execute(";\n".join(f"CREATE OR REPLACE TEMP MACRO {name}{body}"
                            for name, body in macro_definitions().items()))
