"""A fingerprint of the rules behind every stored history value, for tests/test_rules_version.py.

The stored values are run_metrics_long and claim_status, computed by those views, every view they read,
and the text normalisation of the loader (the ``evalwh.text`` package). The fingerprint hashes their
code without comments and docstrings, so rewording a comment changes nothing, and a new view that no
stored value reads changes nothing either.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from evalwh.resources import model_sources
from evalwh.warehouse.views import model_inputs, upstream

STORED = ("run_metrics_long", "claim_status")
TEXT = Path(__file__).resolve().parent.parent / "cli" / "evalwh" / "text"


def _sql_without_comments(sql: str) -> str:
    return "\n".join(line.split("--", 1)[0].rstrip() for line in sql.splitlines() if line.split("--", 1)[0].strip())


def _python_without_docstrings(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            body.pop(0)
    return ast.dump(tree)


def rules_fingerprint() -> str:
    sources = model_sources()
    names = sorted(set(STORED) | upstream(model_inputs(sources), STORED))
    digest = hashlib.sha256()
    for name in names:
        digest.update(f"{name}\0{_sql_without_comments(sources[name])}\0".encode())
    for path in sorted(TEXT.iterdir()):
        if path.suffix == ".py":
            digest.update(f"{path.name}\0{_python_without_docstrings(path.read_text(encoding='utf-8'))}\0".encode())
        elif path.suffix == ".json":
            digest.update(f"{path.name}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]
