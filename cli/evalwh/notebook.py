"""The library from a notebook: one object over a warehouse file, its views as DuckDB relations.

``evalwh.Warehouse("evalwh.duckdb")`` loads runs from a folder or from tables in memory, hands any
view of a run back as a DuckDB relation (so ``.df()``, ``.pl()`` and ``.to_arrow_table()`` work where pandas,
Polars or pyarrow are installed), checks gates and writes reports. It keeps one read-only
connection for the relations it returns and closes it before anything writes the file (a DuckDB
process cannot hold one file read-only and read-write at once): a relation from before a load
must be asked for again after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb

from evalwh.errors import UsageError, closest
from evalwh.history.check import CheckResult, check_on, parse_condition
from evalwh.history.gates import load_gates, merge
from evalwh.invocation import QUIET, Invocation
from evalwh.loader.frames import load_frames
from evalwh.loader.load import LoadResult, load_run
from evalwh.location import Lake, Location, as_location
from evalwh.report.render import build_report, format_for
from evalwh.sqltext import sql_identifier
from evalwh.vocabulary import LATEST
from evalwh.warehouse.connection import open_warehouse
from evalwh.warehouse.runs import resolve_run


class Warehouse:
    """A warehouse, opened as needed: ``with evalwh.Warehouse("evalwh.duckdb") as wh: ...``; a file, or a
    lake (``"ducklake:postgres:dbname=evals host=…"``, its Parquet files under ``data_path`` when new)."""

    def __init__(self, db: str | Path | Lake = "evalwh.duckdb", *, invocation: Invocation = QUIET,
                 data_path: str | None = None) -> None:
        self.path: Location = as_location(db, data_path)
        self.invocation = invocation
        self._stack: ExitStack | None = None
        self._con: duckdb.DuckDBPyConnection | None = None

    # -- reading ---------------------------------------------------------------------------------

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The read-only connection the relations come from (opened on first use)."""
        if self._con is None:
            self._stack = ExitStack()
            self._con = self._stack.enter_context(open_warehouse(self.path, invocation=self.invocation))
        return self._con

    def close(self) -> None:
        """Close the read connection; relations taken from it stop working."""
        if self._stack is not None:
            self._stack.close()
        self._stack, self._con = None, None

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def views(self) -> list[str]:
        """The names of every table and view of the warehouse."""
        return [r[0] for r in self.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1").fetchall()]

    def run_id(self, run: str = LATEST) -> str:
        """A run id, or ``latest``, resolved to the run id it names."""
        return resolve_run(self.con, run)

    def view(self, name: str, run: str | None = LATEST) -> duckdb.DuckDBPyRelation:
        """A table or view as a DuckDB relation, only the rows of ``run`` (a run id or ``latest``;
        None: every run; a view without a run_id column is never filtered)."""
        known = self.views()
        if name not in known:
            raise UsageError(f"no table or view named {name!r}{closest(name, known)}")
        relation = self.con.table(name)
        if run is None or "run_id" not in relation.columns:
            return relation
        return self.con.sql(f"SELECT * FROM {sql_identifier(name)} WHERE run_id = $run",
                            params={"run": self.run_id(run)})

    def sql(self, query: str, params: Sequence[object] | Mapping[str, object] | None = None) -> duckdb.DuckDBPyRelation:
        """Any query over the warehouse as a relation (the connection is read-only)."""
        return self.con.sql(query, params=params)

    def runs(self) -> duckdb.DuckDBPyRelation:
        """Every run, oldest first."""
        return self.con.sql("SELECT run_id, dataset, label, created_at, source FROM runs ORDER BY created_at, run_id")

    def metrics(self, run: str = LATEST) -> dict[str, float | None]:
        """The run's metrics by name (those of ``evalwh metrics``)."""
        from evalwh.history.materialize import metric_values

        return metric_values(self.con, self.run_id(run))

    # -- writing ---------------------------------------------------------------------------------

    def load(self, source: str | Path | Mapping[str, Any], *, run: str | None = None, dataset: str | None = None,
             label: str | None = None, replace: bool = False, thresholds: Sequence[int] = (1, 2, 3, 4, 5),
             overrides: dict[str, Any] | None = None) -> LoadResult:
        """Load a run from a folder, or from tables in memory (``{"chunks": df, "claims": rows, ...}``:
        DataFrames, Arrow tables, relations or lists of dicts; ``run`` is then required), with the
        same validation and the same errors."""
        self.close()
        settings = {**(overrides or {}), **({"dataset": dataset} if dataset is not None else {})}
        if isinstance(source, Mapping):
            if run is None:
                raise UsageError("a run from tables in memory needs run='...'")
            return load_frames(self.path, source, run=run, label=label, replace=replace, thresholds=thresholds,
                               overrides=settings, invocation=self.invocation)
        return load_run(self.path, Path(source), run=run, label=label, replace=replace, thresholds=thresholds,
                        overrides=settings, invocation=self.invocation)

    def check(self, run: str = LATEST, *, min: Mapping[str, float] | None = None,  # noqa: A002 - check's own words
              max: Mapping[str, float] | None = None,  # noqa: A002
              max_drop: Mapping[str, float] | None = None, max_regressions: Mapping[str, int] | None = None,
              require_baseline: bool = False, config: str | Path | None = None,
              baseline: str | None = None) -> CheckResult:
        """The gates of ``config`` (an evalwh.toml; none by default) with these laid over them, checked
        on ``run``: ``.ok``, ``.failed`` and ``.outcomes`` say how it went (nothing is raised on a
        failed gate)."""
        flags = [parse_condition(kind, f"{metric}={limit}")
                 for kind, given in (("min", min), ("max", max), ("max-drop", max_drop),
                                     ("max-regressions", max_regressions))
                 for metric, limit in (given or {}).items()]
        gates = merge(load_gates(Path(config), use_config=True) if config is not None else None, flags,
                      require_baseline)
        if gates.empty:
            raise UsageError("give at least one gate: min=, max=, max_drop=, max_regressions= or config=")
        return check_on(self.con, self.run_id(run), gates.conditions, baseline,
                        require_baseline=gates.require_baseline)

    def report(self, output: str | Path | None = None, run: str = LATEST, *, fmt: str | None = None,
               baseline: str | None = None, config: str | Path | None = None) -> str:
        """A run's report (HTML, or Markdown for ``.md`` or ``fmt="md"``), written to ``output`` when
        given; returns its text. ``config``: an evalwh.toml whose gates give the verdict."""
        self.close()
        path = Path(output) if output is not None else None
        gates = load_gates(Path(config)) if config is not None else None
        return build_report(self.path, run, fmt or format_for(path), path, baseline=baseline,
                            invocation=self.invocation, gates=gates)
