"""A run from tables in memory: pandas or Polars DataFrames, Arrow tables, DuckDB relations or lists of dicts.

A notebook user has the run's tables in memory, not in a folder. Each table is written, as it is,
to a private folder in the format that keeps its types (a list of dicts as JSON Lines, anything
tabular as Parquet through DuckDB), and the folder is loaded by ``load_run``: the same validation,
the same all-or-nothing write. An error names the table instead of the file, with the same row
(the table's 1-based row number) and column as a file of that table would give.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb

from evalwh.errors import InputError, UsageError, closest
from evalwh.invocation import QUIET, Invocation
from evalwh.loader.load import LoadResult, load_run
from evalwh.loader.validate import SPECS
from evalwh.location import Location
from evalwh.sqltext import sql_literal
from evalwh.warehouse.connection import new_connection

# what a run may hold besides its tables: the stop list, one word per item
STOPWORDS = "stopwords"


def _write_records(path: Path, name: str, records: Sequence[Any]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for number, record in enumerate(records, 1):
            if not isinstance(record, Mapping):
                raise InputError(f"table {name}", f"expected a dict per row, got {type(record).__name__}", row=number)
            try:
                handle.write(json.dumps(dict(record), ensure_ascii=False, allow_nan=False) + "\n")
            except (TypeError, ValueError) as exc:
                raise InputError(f"table {name}", f"a value is not JSON: {exc}", row=number) from None


def _write_table(path: Path, name: str, table: Any) -> None:
    """A DataFrame, Arrow table or DuckDB relation as Parquet, its column types kept."""
    con = new_connection()
    try:
        if isinstance(table, duckdb.DuckDBPyRelation):
            table.write_parquet(str(path))
            return
        try:
            con.register("frame", table)
        except (duckdb.Error, TypeError, ValueError) as exc:
            raise UsageError(f"table {name}: not a table evalwh can read (a pandas or Polars DataFrame, an "
                             f"Arrow table, a DuckDB relation or a list of dicts): {type(table).__name__}") from exc
        # a DataFrame's row order is its row numbering: keep it
        con.execute(f"COPY (SELECT * FROM frame) TO {sql_literal(str(path))} (FORMAT parquet)")
    finally:
        con.close()


def write_folder(folder: Path, tables: Mapping[str, Any]) -> dict[str, str]:
    """Write each table into ``folder`` as the input file of its kind; returns file name -> table name."""
    names: dict[str, str] = {}
    for name, table in tables.items():
        if name == STOPWORDS:
            words = [table] if isinstance(table, str) else list(table)
            if not all(isinstance(w, str) for w in words):
                raise UsageError("stopwords: expected a list of words")
            (folder / "stopwords.txt").write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
            continue
        if name not in SPECS:
            raise UsageError(f"no table named {name!r}{closest(name, list(SPECS))} "
                             f"(tables: {', '.join(SPECS)}, and {STOPWORDS})")
        if isinstance(table, (list, tuple)):
            path = folder / f"{name}.jsonl"
            _write_records(path, name, table)
        else:
            path = folder / f"{name}.parquet"
            _write_table(path, name, table)
        names[path.name] = name
    return names


def load_frames(
    db: Location,
    tables: Mapping[str, Any],
    *,
    run: str,
    dataset: str | None = None,
    label: str | None = None,
    replace: bool = False,
    thresholds: Sequence[int] = (1, 2, 3, 4, 5),
    overrides: dict[str, Any] | None = None,
    metrics: bool = True,
    invocation: Invocation = QUIET,
) -> LoadResult:
    """Load ``tables`` (``{"chunks": df, "claims": [...], ...}``; optional ``stopwords``: a list of
    words) as run ``run`` of the warehouse at ``db``, validated exactly as a run folder.

    ``overrides`` are run.toml's settings (retriever, top_k, tokenizer, created_at, format, ...).
    A bad row raises InputError naming ``table claims``, the row (1-based, in the table's order) and
    the column.
    """
    settings = {**(overrides or {}), **({"dataset": dataset} if dataset is not None else {})}
    with tempfile.TemporaryDirectory(prefix="evalwh-frames-") as scratch:
        folder = Path(scratch) / run
        folder.mkdir()
        names = write_folder(folder, tables)
        try:
            return load_run(db, folder, run=run, label=label, replace=replace, thresholds=thresholds,
                            source="tables in memory", overrides=settings, default_dataset=run,
                            metrics=metrics, invocation=invocation)
        except InputError as exc:
            name = names.get(Path(exc.file).name)
            if name is None:
                raise
            raise InputError(f"table {name}", exc.detail, row=exc.row, column=exc.column) from None
