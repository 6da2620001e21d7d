"""The comparison of one pair of runs (question_changes, claim_changes), read one run at a time underneath.

The views ``question_changes`` and ``claim_changes`` hold the rules for every pair of runs at once.
Read for one pair, DuckDB may compute both runs' facts (``question_facts``: outcomes, answer scores and
case scores, whose gold search is the costly part; ``claim_facts``: the claim-status rule) in one
plan, where over two large runs it runs short of memory and spills. A filter on one run_id computes one
run's facts cheaply, so ``diff``, ``check`` and the report compute each run's facts on its own into a
temporary table, then apply the view's own SELECT (``models/question_changes.sql``,
``models/claim_changes.sql``) to that table: the same rule, the same rows. A warehouse whose views
another release wrote is read through its own view, as it stands.

The views pair runs of one dataset only (``run_pairs``); ``across_datasets`` reads the same rule over
every pair (``run_pairs_all``), for ``diff --across-datasets``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from evalwh.resources import model_source
from evalwh.warehouse.views import views_current

# each comparison view, and the view of one run's facts it puts side by side
FACTS = {"question_changes": "question_facts", "claim_changes": "claim_facts"}


def changes_of(
    con: duckdb.DuckDBPyConnection, view: str, baseline: str, run_id: str, *, across_datasets: bool = False
) -> str:
    """A FROM item (named ``view``) holding the rows of the comparison view ``view`` for the pair
    (``baseline``, ``run_id``), and perhaps of other pairs: filter it on both run ids. Each run's facts
    are computed apart, into a temporary table the item reads; in a warehouse whose views are not this
    release's, the item is the view itself."""
    facts = FACTS[view]
    if not views_current(con):
        return view
    table = f"pair_{facts}"
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT * FROM {facts} WHERE run_id = ?", [baseline])
    if run_id != baseline:
        con.execute(f"INSERT INTO temp.{table} SELECT * FROM {facts} WHERE run_id = ?", [run_id])
    select = re.sub(rf"\b{facts}\b", f"temp.{table}", model_source(view))
    if across_datasets:
        select = re.sub(r"\brun_pairs\b", "run_pairs_all", select)
    return f"(\n{select}\n) AS {view}"


@contextmanager
def pair_changes(
    con: duckdb.DuckDBPyConnection, view: str, baseline: str, run_id: str, *, across_datasets: bool = False
) -> Iterator[str]:
    """``changes_of`` for the block: the facts' temporary table is dropped when it ends, so its memory
    goes to what the connection reads next."""
    try:
        yield changes_of(con, view, baseline, run_id, across_datasets=across_datasets)
    finally:
        con.execute(f"DROP TABLE IF EXISTS temp.pair_{FACTS[view]}")
