"""A dataset's blessed baseline: the run its candidates are compared with, set on purpose.

Without one, a run is compared with the previous run of its dataset, which in a team's CI is
whichever job loaded last. ``set_baseline`` records the run a team approved; ``clear_baseline``
returns the dataset to the previous-run rule. Both append to ``baseline_log`` (never update it), and
the view ``baselines`` reads each dataset's latest row; ``evalwh.warehouse.runs.baseline_for`` is
where report, diff, check and site consult it.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from evalwh.errors import UsageError
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Location
from evalwh.warehouse.connection import open_warehouse, scalar, write_transaction
from evalwh.warehouse.runs import blessed_baseline, moment_after, resolve_run


@dataclass(frozen=True)
class BaselineChange:
    """What ``set_baseline`` or ``clear_baseline`` did: the dataset, the run blessed before and after."""

    dataset: str
    before: str | None
    after: str | None


def _append(con: duckdb.DuckDBPyConnection, dataset: str, run_id: str | None, note: str | None) -> None:
    """Append a row to baseline_log, later than every row before it (so that 'latest' is well defined)."""
    now = moment_after(con, "SELECT max(set_at) FROM baseline_log WHERE dataset = ?", [dataset])
    con.execute("INSERT INTO baseline_log VALUES (?, ?, ?, ?)", [dataset, run_id, now, note])


def set_baseline(db: Location, run: str, note: str | None = None, invocation: Invocation = QUIET) -> BaselineChange:
    """Bless ``run`` (a run id or 'latest') as the baseline of its dataset."""
    with open_warehouse(db, write=True, invocation=invocation, udfs=False) as con:
        def work() -> BaselineChange:
            run_id = resolve_run(con, run)
            dataset = scalar(con, "SELECT dataset FROM runs WHERE run_id = ?", [run_id])
            if dataset is None:
                raise UsageError(f"run {run_id!r} belongs to no dataset; load it with --dataset to bless it")
            before = blessed_baseline(con, dataset)
            if before != run_id:
                _append(con, dataset, run_id, note)
            return BaselineChange(dataset, before, run_id)

        return write_transaction(con, db, work, invocation)


def clear_baseline(db: Location, dataset: str, invocation: Invocation = QUIET) -> BaselineChange:
    """Clear the blessed baseline of ``dataset``: its runs are compared with their previous run again."""
    with open_warehouse(db, write=True, invocation=invocation, udfs=False) as con:
        def work() -> BaselineChange:
            if not scalar(con, "SELECT count(*) FROM runs WHERE dataset = ?", [dataset]):
                known = [d for (d,) in con.execute("SELECT DISTINCT dataset FROM runs WHERE dataset IS NOT NULL "
                                                   "ORDER BY 1").fetchall()]
                raise UsageError(f"no dataset {dataset!r} in the warehouse (datasets: {', '.join(known) or 'none'})")
            before = blessed_baseline(con, dataset)
            if before is not None:
                _append(con, dataset, None, None)
            return BaselineChange(dataset, before, None)

        return write_transaction(con, db, work, invocation)

