"""JSON as RFC 8259 has it, where DuckDB's reader is more lenient.

DuckDB's JSON reader (yyjson) accepts a comma before a closing brace or bracket
(``{"a": 1,}``), which JSON does not: such a record is no JSON, and a file of records
written by a broken serialiser must not load as if it were sound. Parsing every record
again in Python would double a large import's time, so SQL first picks the records
that hold a comma followed by a closing brace or bracket (inside a string too: a
superset), and Python's ``json`` parses only those. ``NaN`` and ``Infinity``, which
Python writes by default and DuckDB reads, stay accepted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

# what a record with a trailing comma holds somewhere (RE2, in SQL)
TRAILING_COMMA_SQL = r",[ \t\r\n]*[\]}]"


def json_error(text: str) -> str | None:
    """Why ``text`` is not one JSON value (Python's message and column), or None if it is."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"malformed JSON at column {exc.colno}: {exc.msg}"
    return None


def first_invalid(candidates: Iterable[tuple[object, str]]) -> tuple[object, str] | None:
    """The first (key, reason) of (key, text) pairs whose text is not JSON, in the order given."""
    for key, text in candidates:
        reason = json_error(text)
        if reason is not None:
            return key, reason
    return None
