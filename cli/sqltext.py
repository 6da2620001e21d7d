"""Writing a value into SQL text as a DuckDB string literal.

Values reach DuckDB as query parameters wherever it takes them. Some places take no
parameter: a file name in a table function's arguments, text inside a macro body or a
COMMENT, a path in ATTACH. There the value is written as a literal, quoted here, one way.
"""

from __future__ import annotations


def sql_literal(text: str) -> str:
    """``text`` as a single-quoted DuckDB string literal (each quote doubled; no other escapes)."""
    return "'" + text.replace("'", "''") + "'"
