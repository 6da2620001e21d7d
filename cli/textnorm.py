"""The chapter's text normalisation, exactly as its Python defines it.

``words`` and ``norm`` are the reference semantics of every comparison evalwh
makes: they run once per text at load time (as DuckDB UDFs) and fill stored
columns that the views read. Views never call them, so the warehouse file works
in any DuckDB client.
"""

from __future__ import annotations

import re

import duckdb
from duckdb.sqltypes import VARCHAR

WORD_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
DIGIT_RUN_PATTERN = re.compile(r"\d+")

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


def register_udfs(con: duckdb.DuckDBPyConnection) -> None:
    """Register ``words``, ``norm`` and ``digit_runs`` on a connection (used at load time only)."""
    con.create_function("words", words, [VARCHAR], duckdb.list_type(VARCHAR), null_handling="default")
    con.create_function("norm", norm, [VARCHAR], VARCHAR, null_handling="default")
    con.create_function("digit_runs", digit_runs, [VARCHAR], duckdb.list_type(VARCHAR), null_handling="default")
