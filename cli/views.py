"""Creates the views of ``models/`` in the warehouse, each after the views it reads.

A model is one SELECT in one file, named after its view. The file order on disk
says nothing, so dependencies are read from the SQL: a model depends on every
other model whose name it mentions as a word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from graphlib import TopologicalSorter

import duckdb
from evalwh.resources import model_sources


def model_inputs(sources: dict[str, str]) -> dict[str, set[str]]:
    """Each model's name -> the other models it mentions (comments aside)."""
    graph: dict[str, set[str]] = {}
    for name, sql in sources.items():
        body = "\n".join(line.split("--", 1)[0] for line in sql.splitlines())
        graph[name] = {other for other in sources if other != name and re.search(rf"\b{other}\b", body)}
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


def create_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create or replace every model view; returns their names in creation order."""
    sources = model_sources()
    order = dependency_order(sources)
    for name in order:
        con.execute(f'CREATE OR REPLACE VIEW "{name}" AS\n{sources[name]}')
    return order
