"""Writing a value into SQL text as a DuckDB string literal, and a name as an identifier.

Values reach DuckDB as query parameters wherever it takes them. Some places take no
parameter: a file name in a table function's arguments, text inside a macro body or a
COMMENT, a path in ATTACH. There the value is written as a literal, quoted here, one way.
Column names come from input files and query results, so they are always quoted too.
"""

from __future__ import annotations


def sql_literal(text: str) -> str:
    """``text`` as a single-quoted DuckDB string literal (each quote doubled; no other escapes)."""
    return "'" + text.replace("'", "''") + "'"


def sql_identifier(name: str) -> str:
    """``name`` as a double-quoted DuckDB identifier (each double quote doubled)."""
    return '"' + name.replace('"', '""') + '"'
