"""The import graph of the package, read from its source, and the layering contract it must keep.

A separate module from its test so the test can run the same check over a copy of the package with
a forbidden import added, and see it fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

# lowest first: a module may import its own layer and those below, never one above
LAYERS: tuple[tuple[str, ...], ...] = (
    ("evalwh", "evalwh.errors", "evalwh.sqltext", "evalwh.vocabulary", "evalwh.resources",
     "evalwh.invocation", "evalwh.location"),
    ("evalwh.text",),
    ("evalwh.warehouse",),
    ("evalwh.output",),
    ("evalwh.history",),
    ("evalwh.loader", "evalwh.logs"),
    ("evalwh.report", "evalwh.queries", "evalwh.export", "evalwh.notebook"),
    ("evalwh.spark",),
    ("evalwh.app", "evalwh.__main__"),
)
COMMAND_LINE = ("typer", "click")
RICH_HOME = "evalwh.output.terminal"


def module_name(package: Path, path: Path) -> str:
    parts = ["evalwh", *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.AST) -> bool:
    """Whether ``node`` is ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``), whose imports never run."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (what type checkers see, not what runs)."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If) and _type_checking(node):
            children = [*node.orelse]  # only the else branch runs
        stack.extend(children)
    return found


def imports(package: Path) -> dict[str, set[str]]:
    """Module -> every module it imports when it runs (at any depth in its code, lazily or not; the imports
    under ``if TYPE_CHECKING:`` are for type checkers only)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        name = module_name(package, path)
        found: set[str] = set()
        for node in _nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names if node.module.startswith("evalwh"))
        graph[name] = found
    return graph


def layer_of(module: str) -> int | None:
    """The layer of an evalwh module (the longest prefix listed), None for anything else."""
    best: tuple[int, int] | None = None
    for level, names in enumerate(LAYERS):
        for prefix in names:
            if module == prefix or module.startswith(prefix + ".") and prefix != "evalwh":
                if best is None or len(prefix) > best[1]:
                    best = (level, len(prefix))
    return best[0] if best else None


def violations(package: Path) -> list[str]:
    """Every import that breaks the contract, as ``importer -> imported: why``."""
    graph = imports(package)
    known = set(graph)
    found = []
    for module, targets in sorted(graph.items()):
        here = layer_of(module)
        for target in sorted(targets):
            top = target.split(".")[0]
            if top in COMMAND_LINE and not module.startswith("evalwh.app"):
                found.append(f"{module} -> {target}: only evalwh.app imports the command-line library")
            if top == "rich" and module != RICH_HOME:
                found.append(f"{module} -> {target}: Rich is imported only in {RICH_HOME}")
            if top != "evalwh" and any(part.startswith("_") and not part.startswith("__") for part in target.split(".")):
                found.append(f"{module} -> {target}: a private module of another package (public APIs only)")
            if top != "evalwh" or target not in known:
                continue  # a name imported from a module, or another package
            there = layer_of(target)
            if here is not None and there is not None and there > here:
                found.append(f"{module} -> {target}: an import upward (layer {here} imports layer {there})")
    return found
