"""evalwh: an evaluation warehouse for grounded RAG answers, on DuckDB.

The library is the product; the ``evalwh`` command is a thin layer over it. Its face, imported
lazily (``import evalwh`` loads none of it):

- ``Warehouse(db)``: the notebook face: load from a folder or from DataFrames, Arrow tables or lists
  of dicts, any view of a run as a DuckDB relation, gates, reports;
- ``load_run(db, folder, ...)``: load a run folder into the warehouse file ``db``, all or nothing;
- ``load_frames(db, {"chunks": df, ...}, run=...)``: the same from tables in memory;
- ``import_logs(db, paths, ...)``: append production log files as one batch;
- ``open_warehouse(db)``: a DuckDB connection to the warehouse, its views ready for plain SQL;
- ``materialize(db)``: copy the metric views into the history tables;
- ``build_report(db, run, fmt, output)``: a run's HTML or Markdown report;
- ``queries``: a run's rows, one function per question (``queries.metrics(con, "latest")``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # what the lazy face below hands out, as type checkers and editors see it
    from evalwh import queries as queries
    from evalwh.history.materialize import materialize as materialize
    from evalwh.invocation import Invocation as Invocation
    from evalwh.loader import load_run as load_run
    from evalwh.loader.frames import load_frames as load_frames
    from evalwh.logs import import_logs as import_logs
    from evalwh.notebook import Warehouse as Warehouse
    from evalwh.report import build_report as build_report
    from evalwh.warehouse import open_warehouse as open_warehouse

_FACE = {
    "Warehouse": "evalwh.notebook",
    "load_run": "evalwh.loader",
    "load_frames": "evalwh.loader.frames",
    "import_logs": "evalwh.logs",
    "open_warehouse": "evalwh.warehouse",
    "materialize": "evalwh.history",
    "build_report": "evalwh.report",
    "Invocation": "evalwh.invocation",
}

__all__ = ["__version__", "queries", "Warehouse", "load_run", "load_frames", "import_logs", "open_warehouse",
           "materialize", "build_report", "Invocation"]


def __dir__() -> list[str]:
    """The face beside the module's own names, so tab completion in a notebook lists it."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


def __getattr__(name: str) -> Any:
    if name == "queries":
        return importlib.import_module("evalwh.queries")
    if name in _FACE:
        return getattr(importlib.import_module(_FACE[name]), name)
    raise AttributeError(f"module 'evalwh' has no attribute {name!r}")
