"""The chapter's evidence file for a run: ``key: value`` lines in the chapter's order.

Every value is read from the views; this module only formats them the way the
chapter asks (shares to 3 decimals, lists comma-separated without spaces,
``none`` for an empty list).
"""

from __future__ import annotations

import duckdb

from evalwh.warehouse.connection import one
from evalwh.warehouse.runs import resolve_run

NOT_AVAILABLE = "n/a"


def _share(value: float | None) -> str:
    return NOT_AVAILABLE if value is None else f"{value:.3f}"


def _ids(ids: list[str] | None) -> str:
    return ",".join(ids) if ids else "none"


def evidence_lines(con: duckdb.DuckDBPyConnection, run: str) -> list[str]:
    """The evidence lines of ``run`` (a run id or ``latest``)."""
    run_id = resolve_run(con, run)
    lines: list[str] = []

    for claim_id, status in con.execute(
        "SELECT claim_id, status FROM claim_status WHERE run_id = ? ORDER BY ordinal", [run_id]
    ).fetchall():
        lines.append(f"t1_{claim_id}: {status}")
    supported_share, pair_precision = one(
        con, "SELECT supported_share, pair_precision FROM run_metrics WHERE run_id = ?", [run_id]
    )
    lines.append(f"t1_supported_share: {_share(supported_share)}")
    lines.append(f"t1_pair_precision: {_share(pair_precision)}")

    best = con.execute(
        "SELECT question_id, best_score FROM question_best_score WHERE run_id = ? ORDER BY ordinal", [run_id]
    ).fetchall()
    lines.append("t2_best_scores: " + (",".join(f"{q}={s}" for q, s in best) or "none"))
    sweep = {
        threshold: (correct, refused, answered)
        for threshold, correct, refused, answered in con.execute(
            "SELECT threshold, correct, wrongly_refused, wrongly_answered FROM threshold_sweep WHERE run_id = ?",
            [run_id],
        ).fetchall()
    }
    counts = [sweep[t][0] for t in sorted(sweep)]
    lines.append("t2_correct: " + (",".join(str(c) for c in counts) or NOT_AVAILABLE))
    lines.append(f"t2_best_accuracy: {max(counts) if counts else NOT_AVAILABLE}")
    lines.append(f"t2_wrongly_refused_t3: {_ids(sweep[3][1]) if 3 in sweep else NOT_AVAILABLE}")
    lines.append(f"t2_wrongly_answered_t2: {_ids(sweep[2][2]) if 2 in sweep else NOT_AVAILABLE}")

    cases = con.execute(
        "SELECT expected, chunk_id FROM cases WHERE run_id = ? ORDER BY ordinal", [run_id]
    ).fetchall()
    lines.append(f"t3_rows: {len(cases)}")
    lines.append(f"t3_answer_rows: {sum(1 for expected, _ in cases if expected == 'answer')}")
    lines.append("t3_chunk_ids: " + (",".join(chunk for _, chunk in cases) or "none"))
    return lines
