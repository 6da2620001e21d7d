"""Creates the views of ``models/`` in the warehouse, each after the views it reads.

A model is one SELECT in one file, named after its view. The file order on disk
says nothing, so dependencies are read from the SQL: a model depends on every
other model whose name it mentions as a word.

Each view carries a comment with its header line and a fingerprint of all the models'
SQL; a warehouse whose views all carry this release's fingerprint keeps them as they
are, so only a new file, a schema step or changed models pay for creating them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from graphlib import TopologicalSorter

import duckdb

from evalwh.resources import model_sources
from evalwh.sqltext import sql_literal


def model_inputs(sources: dict[str, str]) -> dict[str, set[str]]:
    """Each model's name -> the other models it mentions (comments aside)."""
    graph: dict[str, set[str]] = {}
    for name, sql in sources.items():
        body = "\n".join(line.split("--", 1)[0] for line in sql.splitlines())
        graph[name] = (set(re.findall(r"\w+", body)) & set(sources)) - {name}
    return graph


def upstream(graph: dict[str, set[str]], names: Iterable[str]) -> set[str]:
    """Every model the given models read, directly or through others (the given ones excluded)."""
    seen: set[str] = set()
    stack = list(names)
    while stack:
        for other in graph[stack.pop()]:
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return seen


def dependency_order(sources: dict[str, str]) -> list[str]:
    """Model names ordered so that each comes after the models it mentions."""
    return list(TopologicalSorter(model_inputs(sources)).static_order())


def fingerprint(sources: dict[str, str]) -> str:
    """A short hash of every model's name and SQL."""
    import hashlib  # only where views are written or checked: a read never needs it

    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(f"{name}\0{sources[name]}\0".encode())
    return digest.hexdigest()[:16]


def view_comment(name: str, sql: str, mark: str) -> str:
    """The comment a model's view carries: its header's first line (what one row is), then the fingerprint."""
    header = next((line[2:].strip() for line in sql.splitlines() if line.startswith("--")), name)
    return f"{header} [evalwh models {mark}]"


def view_comments(sources: dict[str, str]) -> dict[str, str]:
    """Model name -> the comment its view carries in this release."""
    mark = fingerprint(sources)
    return {name: view_comment(name, sql, mark) for name, sql in sources.items()}


def views_current(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether every model view exists in the default database with this release's comment."""
    found = dict(con.execute(
        "SELECT view_name, comment FROM duckdb_views() WHERE database_name = current_database() "
        "AND schema_name = 'main'").fetchall())
    return all(found.get(name) == comment for name, comment in view_comments(model_sources()).items())


def view_statements() -> list[tuple[str, str]]:
    """(view name, its CREATE OR REPLACE VIEW statement) for every model, each after the views it reads:
    the one place DuckDB's view DDL is written, for the warehouse and for ``evalwh views``."""
    sources = model_sources()
    return [(name, f'CREATE OR REPLACE VIEW "{name}" AS\n{sources[name].strip()}') for name in dependency_order(sources)]


def create_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create or replace every model view, each with its comment; returns their names in creation order."""
    comments = view_comments(model_sources())
    statements = view_statements()
    for name, statement in statements:
        con.execute(statement)
        con.execute(f'COMMENT ON VIEW "{name}" IS {sql_literal(comments[name])}')
    return [name for name, _ in statements]


def render(statements: list[str]) -> str:
    """Statements separated by a line holding only ``;``, so a script can split the output on that line."""
    return "".join(f"{statement}\n;\n" for statement in statements)
