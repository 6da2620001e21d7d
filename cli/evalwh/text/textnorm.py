"""The chapter's text normalisation, exactly as its Python defines it.

``words`` and ``norm`` are the reference semantics of every comparison evalwh
makes: they run once per text at load time (as DuckDB UDFs) and fill stored
columns that the views read. Views never call them, so the warehouse file works
in any DuckDB client.
"""

from __future__ import annotations

import re
import unicodedata

import duckdb

WORD_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
DIGIT_RUN_PATTERN = re.compile(r"\d+")
# "unicode" tokenizer: [\p{L}\p{N}][\p{L}\p{N}-]*; in Python's re, [^\W_] is exactly [\p{L}\p{N}]
UNICODE_TERM_PATTERN = re.compile(r"[^\W_](?:[^\W_]|-)*")
TOKENIZERS: dict[str, re.Pattern[str]] = {"ascii": WORD_PATTERN, "unicode": UNICODE_TERM_PATTERN}
# a number is a digit run not preceded by a letter or digit
NUMBER_PATTERN = re.compile(r"(?<![^\W_])\d+")
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")

CHAPTER_STOPWORDS: tuple[str, ...] = tuple(
    "the a an of to is are in on for be by and or it that this who which what how do i can will must "
    "from at with as when".split()
)


def words(text: str) -> list[str]:
    """The chapter's words: runs of ``[a-z0-9]`` joined by single hyphens, after Python's ``lower()``."""
    return WORD_PATTERN.findall(text.lower())


def norm(text: str) -> str:
    """The chapter's normal form: the words joined by single spaces (ignores case and punctuation)."""
    return " ".join(words(text))


def digit_runs(text: str) -> list[str]:
    """Runs of decimal digits as Python's ``\\d+`` finds them (every Unicode decimal digit)."""
    return DIGIT_RUN_PATTERN.findall(text)


def terms(text: str, tokenizer: str) -> list[str]:
    """Retrieval tokens of ``text`` by the run's tokenizer (``ascii`` tokens are the chapter's words)."""
    return TOKENIZERS[tokenizer].findall(text.lower())


def numbers(text: str) -> list[str]:
    """Digit runs (Python's ``\\d``) not preceded by a letter or digit: ``v2`` has none, ``2.5`` has 2 and 5."""
    return NUMBER_PATTERN.findall(text)


def first_sentence(text: str) -> str:
    """Text up to the first ``.``, ``!`` or ``?`` followed by white space or the end, stripped."""
    match = SENTENCE_END.search(text)
    return (text[: match.end()] if match else text).strip()


ARTICLES = re.compile(r"\b(a|an|the)\b")


def squad_normalize(text: str) -> str:
    """SQuAD's answer normalisation: lower-case, delete punctuation, replace the words a/an/the by a space,
    squish white space. Punctuation here is every Unicode punctuation (P*) and symbol (S*) character,
    not only ASCII's ``string.punctuation``, so that answers in any script normalise alike."""
    kept = "".join(ch for ch in text.lower() if unicodedata.category(ch)[0] not in "PS")
    return " ".join(ARTICLES.sub(" ", kept).split())


def squad_tokens(text: str) -> list[str]:
    """The tokens of ``squad_normalize(text)``: what EM and F1 compare."""
    return squad_normalize(text).split()


def variants(text: str) -> list[str]:
    """``acceptable_answers`` split on ``|``, each stripped, blank variants dropped."""
    return [v.strip() for v in text.split("|") if v.strip()]


def squad_variants(text: str) -> list[list[str]]:
    """The SQuAD tokens of each variant as the retrieve-then-read lesson lists them: ``text`` split on
    ``|``, only the empty variants dropped (``variants[nzchar(variants)]``), so a blank one is there,
    with no tokens. What EM and F1 score against."""
    return [squad_tokens(v) for v in text.split("|") if v]


def squad_variant_norms(text: str) -> list[str]:
    """``squad_normalize`` of each of ``variants(text)``: what the extractive baseline looks for."""
    return [squad_normalize(v) for v in variants(text)]


def ensure_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register the normalisation functions on ``con`` unless it has them already (a schema step that fills
    a stored column calls them; registering them imports numpy, which a load without such a step spares)."""
    [(registered,)] = con.execute(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'squad_variant_norms' "
        "AND function_type = 'scalar'"
    ).fetchall()
    if not registered:
        register_udfs(con)


def register_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register the normalisation functions on a connection (used at load time only, never by views)."""
    # imported where a function is registered: a command that registers none never needs them
    from duckdb.func import FunctionNullHandling
    from duckdb.sqltypes import VARCHAR

    text_list = con.list_type(VARCHAR)  # not duckdb.list_type, which opens the default connection
    con.create_function("words", words, [VARCHAR], text_list, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("norm", norm, [VARCHAR], VARCHAR, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("digit_runs", digit_runs, [VARCHAR], text_list, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("terms", terms, [VARCHAR, VARCHAR], text_list, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("numbers", numbers, [VARCHAR], text_list, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("first_sentence", first_sentence, [VARCHAR], VARCHAR, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("squad_tokens", squad_tokens, [VARCHAR], text_list, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("variants", variants, [VARCHAR], text_list, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("squad_variants", squad_variants, [VARCHAR], con.list_type(text_list),
                        null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("squad_normalize", squad_normalize, [VARCHAR], VARCHAR, null_handling=FunctionNullHandling.DEFAULT)
    con.create_function("squad_variant_norms", squad_variant_norms, [VARCHAR], text_list,
                        null_handling=FunctionNullHandling.DEFAULT)
