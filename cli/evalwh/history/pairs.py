"""The comparison of one pair of runs (question_changes), read one run at a time underneath.

The view ``question_changes`` holds the rule for every pair of runs at once. Read for one pair, DuckDB
computes both runs' question facts (``question_facts``: outcomes, answer scores and case scores, whose
gold search is the costly part) in one plan, where over two large runs the search runs short of memory
and spills. A filter on one run_id computes one run's facts cheaply, so ``diff``, ``check`` and the
report compute each run's facts on its own into a temporary table, then apply the view's own SELECT
(``models/question_changes.sql``) to that table: the same rule, the same rows. A warehouse whose views
another release wrote is read through its own view, as it stands.
"""

from __future__ import annotations

import re

from evalwh.engine import duckdb
from evalwh.resources import model_source
from evalwh.warehouse.views import views_current

PAIR_FACTS = "temp.pair_question_facts"


def question_changes_of(con: duckdb.DuckDBPyConnection, baseline: str, run_id: str) -> str:
    """A FROM item (``question_changes``) holding the rows of the view question_changes for the pair
    (``baseline``, ``run_id``), and perhaps of other pairs: filter it on both run ids. Each run's
    question_facts are computed apart, into a temporary table the item reads; in a warehouse whose views
    are not this release's, the item is the view itself."""
    if not views_current(con):
        return "question_changes"
    con.execute("CREATE OR REPLACE TEMP TABLE pair_question_facts AS SELECT * FROM question_facts WHERE run_id = ?",
                [baseline])
    if run_id != baseline:
        con.execute(f"INSERT INTO {PAIR_FACTS} SELECT * FROM question_facts WHERE run_id = ?", [run_id])
    select = re.sub(r"\bquestion_facts\b", PAIR_FACTS, model_source("question_changes"))
    return f"(\n{select}\n) AS question_changes"
