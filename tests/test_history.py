"""History: a load's stored headline metrics; materialize incremental, idempotent, --full-refresh; and
history equal to the live views."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from evalwh.history import claim_statuses_source, materialize
from evalwh.loader import load_run
from evalwh.queries import runs
from evalwh.warehouse import open_warehouse
from tests.conftest import CHAPTER3, rows, snapshot, warehouse_at_version


def test_materialize_is_incremental_and_idempotent(db: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    assert materialize(db).runs == ["a"]
    first = snapshot(db)["metrics_history"]
    assert materialize(db).runs == []
    assert snapshot(db)["metrics_history"] == first
    load_run(db, CHAPTER3, run="b")
    assert materialize(db).runs == ["b"]
    assert rows(db, "SELECT run_id, count(*) FROM claim_status_history GROUP BY run_id ORDER BY run_id") == [
        ("a", 8), ("b", 8)
    ]
    assert materialize(db, full_refresh=True).runs == ["a", "b"]


def test_history_holds_the_chapter_numbers(db: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    materialize(db)
    metrics = dict(rows(db, "SELECT metric, value FROM metrics_history WHERE run_id = 'a'"))
    assert metrics == {
        "claims": 8, "uncited": 1, "dangling": 1, "unsupported": 1, "number_mismatch": 1, "supported": 4,
        "supported_share": 0.5, "pairs": 8, "sound_pairs": 5, "pair_precision": 0.625,
        "questions": 8, "best_correct": 7,
        # no gold chunks and no responses in the chapter's data: these do not apply
        "recall_at_k": None, "action_accuracy": None, "mean_em": None, "mean_f1": None, "held_for_review": None,
        "retrieval_accuracy": None, "citation_accuracy": None, "refusal_accuracy": None,
        "refusals_wrong": None, "refusals_missed": None, "judge_disagreement_rate": None,
    }
    assert rows(db, "SELECT claim_id, status FROM claim_status_history ORDER BY ordinal")[:2] == [
        ("c1", "SUPPORTED"), ("c2", "NUMBER_MISMATCH")
    ]


def test_replacing_a_run_clears_its_history(db: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    materialize(db)
    with duckdb.connect(str(db)) as con:  # a value the new load's metrics must not keep
        con.execute("UPDATE metrics_history SET value = 99 WHERE metric = 'claims'")
    load_run(db, CHAPTER3, run="a", replace=True)
    assert rows(db, "SELECT count(*) FROM claim_status_history") == [(0,)]
    assert rows(db, "SELECT value FROM metrics_history WHERE metric = 'claims'") == [(8,)]  # the new load's own
    assert materialize(db).runs == ["a"]
    assert rows(db, "SELECT count(*) FROM claim_status_history") == [(8,)]


LIVE = "SELECT run_id, position, metric, value FROM run_metrics_long"
STORED = "SELECT run_id, position, metric, value FROM metrics_history"


@pytest.mark.parametrize("seed", ["chapter3", "handbook", "three-axis"])
def test_a_load_stores_its_headline_metrics_equal_to_the_live_view(db: Path, seed: str) -> None:
    from evalwh.resources import seed_dir

    load_run(db, Path(str(seed_dir(seed))), run=seed)
    stored = rows(db, f"{STORED} ORDER BY position")
    assert len(stored) == 23 and {r[0] for r in stored} == {seed}
    assert stored == rows(db, f"{LIVE} ORDER BY position")
    assert rows(db, "SELECT count(*) FROM claim_status_history") == [(0,)]  # statuses: by materialize


def test_the_gate_reads_the_stored_metrics_and_no_metrics_leaves_them_live(db: Path) -> None:
    from evalwh.history.check import parse_condition, run_check

    load_run(db, CHAPTER3, run="a")
    load_run(db, CHAPTER3, run="b", metrics=False)
    assert rows(db, "SELECT DISTINCT run_id FROM metrics_history") == [("a",)]
    with duckdb.connect(str(db)) as con:  # a stored value that differs from the views shows which was read
        con.execute("UPDATE metrics_history SET value = 0.25 WHERE metric = 'supported_share'")
    gate = [parse_condition("min", "supported_share=0.5")]
    assert [o.actual for o in run_check(db, "a", gate).outcomes] == [0.25]
    assert [o.actual for o in run_check(db, "b", gate).outcomes] == [0.5]  # live: 4 of 8 claims
    assert materialize(db).runs == ["a", "b"]  # a: its statuses; b: its metrics and statuses
    assert rows(db, f"{STORED} WHERE run_id = 'b' ORDER BY position") == rows(db, f"{LIVE} WHERE run_id = 'b' ORDER BY position")


def test_cli_load_no_metrics(cli, tmp_path: Path) -> None:
    assert cli("load", str(CHAPTER3), "--run", "a", "--no-metrics").exit_code == 0
    assert cli("sql", "SELECT count(*) AS n FROM metrics_history", "-f", "csv").stdout == "n\n0\n"
    assert cli("load", str(CHAPTER3), "--run", "b").exit_code == 0
    assert cli("sql", "SELECT run_id, count(*) AS n FROM metrics_history GROUP BY ALL", "-f", "csv").stdout == "run_id,n\nb,23\n"
    assert "--no-metrics" in cli("load", "--help").stdout


def test_cli_materialize(cli) -> None:
    cli("seed")
    result = cli("materialize")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == "evalwh: materialised 1 run(s): chapter3\n"
    again = cli("materialize")
    assert again.stderr == "evalwh: nothing to materialise: every run is already in history\n"


def test_version_1_warehouse_is_migrated(db: Path) -> None:
    from evalwh.resources import schema_steps

    warehouse_at_version(db, 1).close()
    load_run(db, CHAPTER3, run="a")
    assert rows(db, "SELECT max(version) FROM schema_version") == [(max(v for v, _, _ in schema_steps()),)]
    assert materialize(db).runs == ["a"]


def test_materialize_outside_a_warehouse_creates_nothing(cli, db: Path) -> None:
    result = cli("materialize")
    assert result.exit_code == 3
    assert result.stderr.startswith(f"evalwh: error: {db}: no warehouse here")
    assert not db.exists()


def test_views_are_created_once_and_restored_when_changed(db: Path, monkeypatch) -> None:
    import evalwh.warehouse.views as views
    from evalwh.resources import model_sources

    load_run(db, CHAPTER3, run="a")
    created = []
    real = views.create_views
    monkeypatch.setattr(views, "create_views", lambda con: created.append(1) or real(con))
    load_run(db, CHAPTER3, run="b")
    assert created == []  # every view already carries this release's models
    con = duckdb.connect(str(db))
    comments = dict(con.execute("SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall())
    assert set(comments) >= set(model_sources())
    assert comments["claim_status"].startswith("One row per claim")
    # a view replaced by hand (its comment gone) brings every view back at the next write
    con.execute("CREATE OR REPLACE VIEW claim_status AS SELECT 1 AS x")
    con.close()
    load_run(db, CHAPTER3, run="c")
    assert created == [1]
    statuses = rows(db, "SELECT run_id, count(*) FROM claim_status GROUP BY run_id ORDER BY run_id")
    assert [r[0] for r in statuses] == ["a", "b", "c"] and statuses[0][1] == statuses[2][1] > 0


def test_runs_reads_a_materialised_run_from_history(db: Path, tmp_path: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    materialize(db)
    load_run(db, CHAPTER3, run="b", metrics=False)  # not stored: computed live
    no_questions = tmp_path / "no-questions"
    shutil.copytree(CHAPTER3, no_questions)
    (no_questions / "questions.csv").unlink()
    load_run(db, no_questions, run="c")
    with duckdb.connect(str(db)) as con:  # history that differs from the live views shows where a row came from
        con.execute("UPDATE metrics_history SET value = 0.25 WHERE run_id = 'a' AND metric = 'supported_share'")
        con.execute("UPDATE metrics_history SET value = 7 WHERE run_id = 'a' AND metric = 'claims'")
        con.execute("UPDATE metrics_history SET value = 5 WHERE run_id = 'a' AND metric = 'questions'")
    with open_warehouse(db) as con:
        listed = runs(con)
    assert listed.columns == ("run_id", "dataset", "created_at", "label", "claims", "supported_share",
                              "pair_precision", "questions")
    assert [(r[0], r[4], r[5], r[6], r[7]) for r in listed.rows] == [("a", 7, 0.25, 0.625, 5), ("b", 8, 0.5, 0.625, 8),
                                                                  ("c", 8, 0.5, 0.625, 0)]
    assert listed.types[4] == listed.types[7] == "BIGINT"
    assert all(isinstance(r[7], int) for r in listed.rows)
    with duckdb.connect(str(db)) as con:  # a metric history lacks (edited by hand) is empty, not an error
        con.execute("DELETE FROM metrics_history WHERE run_id = 'a' AND metric = 'questions'")
    with open_warehouse(db) as con:
        assert [r[7] for r in runs(con).rows] == [None, 8, 0]


def test_live_statuses_are_computed_once_per_connection_and_run_version(db: Path) -> None:
    load_run(db, CHAPTER3, run="a")
    with open_warehouse(db) as con:
        first = claim_statuses_source(con, "a")
        assert claim_statuses_source(con, "a") == first  # reused, not recomputed
        assert con.execute(f"SELECT claim_id, status FROM {first} ORDER BY ordinal").fetchall() == \
            con.execute("SELECT claim_id, status FROM claim_status WHERE run_id = 'a' ORDER BY ordinal").fetchall()
        temps = "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'temp'"
        assert con.execute(temps).fetchone() == (1,)
    load_run(db, CHAPTER3, run="a", replace=True)  # a replaced run is another version: never the cached rows
    with open_warehouse(db) as con:
        assert claim_statuses_source(con, "a") != first
    materialize(db)
    with open_warehouse(db) as con:
        assert claim_statuses_source(con, "a") == "claim_status_history"


def test_a_load_stopped_before_its_metrics_keeps_the_run_and_reads_them_live(db: Path, monkeypatch) -> None:
    import evalwh.loader.load as loader
    from evalwh.history import metric_values

    def interrupted(con, run_id, now):
        con.execute("INSERT INTO metrics_history VALUES (?, 1, 'claims', 99, ?, NULL, NULL)", [run_id, now])
        raise KeyboardInterrupt

    monkeypatch.setattr(loader, "store_metrics", interrupted)
    with pytest.raises(KeyboardInterrupt):
        load_run(db, CHAPTER3, run="a")
    # the run was committed first; the half-written metrics were rolled back
    assert rows(db, "SELECT run_id FROM runs") == [("a",)]
    assert rows(db, "SELECT count(*) FROM metrics_history") == [(0,)]
    with open_warehouse(db) as con:
        assert metric_values(con, "a", logs=False)["supported_share"] == 0.5  # live: 4 of 8 claims
    monkeypatch.undo()
    assert materialize(db).runs == ["a"]
    assert rows(db, f"{STORED} ORDER BY position") == rows(db, f"{LIVE} ORDER BY position")


def test_claim_history_covers_runs_not_materialised(tmp_path: Path) -> None:
    from evalwh.history import materialize
    from evalwh.loader import load_run
    from evalwh.warehouse import open_warehouse
    from tests.conftest import CHAPTER3

    db = tmp_path / "wh.duckdb"
    load_run(db, CHAPTER3, run="a")
    with open_warehouse(db) as con:
        live = con.execute("SELECT claim_id, status FROM claim_status WHERE run_id = 'a' ORDER BY ALL").fetchall()
        assert con.execute("SELECT count(*) FROM claim_status_history").fetchone() == (0,)
        before = con.execute("SELECT claim_id, status, materialized_at FROM claim_history ORDER BY ALL").fetchall()
    assert [(c, s) for c, s, _ in before] == live and len(live) == 8 and {m for _, _, m in before} == {None}
    materialize(db)
    load_run(db, CHAPTER3, run="b", default_dataset="chapter3")
    with open_warehouse(db) as con:
        rows = con.execute("SELECT run_id, count(*), count(materialized_at) FROM claim_history GROUP BY ALL "
                           "ORDER BY ALL").fetchall()
    assert rows == [("a", 8, 8), ("b", 8, 0)]  # a from history, once; b live
