"""The portable SQL lint: DuckDB constructs that sqlglot does not carry faithfully to Spark SQL.

evalwh's metric SQL (``models/``, ``sql/logformats/``) is meant to mean the same on Spark as on
DuckDB. sqlglot transpiles the files below without a warning, yet each construct changes meaning
or breaks on Spark; ``lint`` finds them by scanning sqlglot's DuckDB tokens (so comments and
strings never match) and names the file, the line and the portable replacement. Needs sqlglot
(the ``spark`` extra).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    construct: str
    replacement: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.construct}; {self.replacement}"


ORDERED_AGG = ("array_agg(x ORDER BY y) loses its order on Spark (COLLECT_LIST)",
               "aggregate structs and sort the list (list_sort), then take the field")
LEN = ("len(list) becomes Spark's string LENGTH", "use array_length(list)")
SLICE = ("a list slice l[a:b] passes through unchanged (a syntax error on Spark)", "use list_slice / array_slice")
HAS_ALL = ("list_has_all has no Spark mapping", "use list_filter with list_contains")
ORDINALITY = ("WITH ORDINALITY becomes POSEXPLODE, which counts from 0",
              "number the elements with generate_subscripts or use positions only as keys")
UNNEST_FROM = ("an unnest or generate_series joined in FROM becomes a LATERAL VIEW after the joins",
               "unnest in the select list of its own CTE")
ARROW = ("a JSON arrow (-> or ->>) is read as a lambda inside function calls on Spark",
         "use json_extract / json_extract_string")
JSON_LIST = ("CAST(x AS JSON[]) has no Spark type", "keep JSON as text and read it with json_extract")
DECIMAL_RATIO = ("a decimal literal in arithmetic is DECIMAL on Spark, not DOUBLE", "write CAST(... AS DOUBLE)")


def _tokens(sql: str) -> list[Any]:
    from sqlglot.dialects.duckdb import DuckDB

    return list(DuckDB().tokenize(sql))


def _name(token: Any) -> str:
    return str(token.text).lower()


def _closing(tokens: Sequence[Any], start: int) -> int:
    """Index of the bracket closing the one at ``start``."""
    depth = 0
    for i in range(start, len(tokens)):
        kind = tokens[i].token_type.name
        if kind in ("L_PAREN", "L_BRACKET"):
            depth += 1
        elif kind in ("R_PAREN", "R_BRACKET"):
            depth -= 1
            if depth == 0:
                return i
    return len(tokens) - 1


def _scan(tokens: Sequence[Any]) -> Iterator[tuple[int, tuple[str, str]]]:
    in_from = False
    for i, token in enumerate(tokens):
        kind, name = token.token_type.name, _name(token)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        opens_call = nxt is not None and nxt.token_type.name == "L_PAREN"
        if kind == "FROM":
            in_from = True
        elif kind in ("SELECT", "WHERE", "GROUP_BY", "ORDER_BY"):
            in_from = False
        if name == "array_agg" and opens_call:
            end = _closing(tokens, i + 1)
            if any(t.token_type.name == "ORDER_BY" for t in tokens[i + 2:end]):
                yield token.line, ORDERED_AGG
        elif name == "len" and opens_call:
            yield token.line, LEN
        elif name == "list_has_all" and opens_call:
            yield token.line, HAS_ALL
        elif kind == "ORDINALITY":
            yield token.line, ORDINALITY
        elif kind in ("ARROW", "DARROW"):
            yield token.line, ARROW
        elif kind == "JSON" and nxt is not None and nxt.token_type.name == "L_BRACKET":
            yield token.line, JSON_LIST
        elif kind == "L_BRACKET":
            end = _closing(tokens, i)
            depth = 0
            for t in tokens[i + 1:end]:
                if t.token_type.name in ("L_PAREN", "L_BRACKET"):
                    depth += 1
                elif t.token_type.name in ("R_PAREN", "R_BRACKET"):
                    depth -= 1
                elif t.token_type.name == "COLON" and depth == 0:
                    yield token.line, SLICE
                    break
        elif kind == "NUMBER" and "." in token.text:
            before = tokens[i - 1].token_type.name if i else ""
            after = nxt.token_type.name if nxt is not None else ""
            if before in ("STAR", "SLASH") or after in ("STAR", "SLASH"):
                yield token.line, DECIMAL_RATIO
        elif (kind == "UNNEST" or name == "generate_series") and opens_call and in_from:
            prev = tokens[i - 1].token_type.name if i else ""
            if prev in ("COMMA", "JOIN", "FROM"):
                yield token.line, UNNEST_FROM


def lint(file: str, sql: str) -> list[Finding]:
    """Every non-portable construct in ``sql``, in order of appearance."""
    return [Finding(file, line, construct, replacement) for line, (construct, replacement) in _scan(_tokens(sql))]
