"""The notebook face: a run from tables in memory equals the run from its folder, errors included."""

from __future__ import annotations

import csv
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

import evalwh
from evalwh.errors import InputError, UsageError
from evalwh.warehouse import open_warehouse
from tests.conftest import CHAPTER3, REPO
from tests.test_docs import run_page_example

HANDBOOK = REPO / "seeds" / "handbook"
# the columns of a base table that say where a run came from rather than what it holds
PROVENANCE = {"source", "created_at", "run_id", "label", "dataset", "content_digest", "manifest"}


def read_rows(folder: Path, name: str) -> list[dict[str, str]]:
    with (folder / f"{name}.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def tables_of(con: Any, run_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every run-scoped base table's rows for ``run_id``, provenance columns left out, sorted."""
    out = {}
    for (table,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                                "AND table_name IN (SELECT table_name FROM duckdb_columns() WHERE column_name = 'run_id') "
                                "AND table_name NOT LIKE '%history%' ORDER BY 1").fetchall():
        columns = [c for (c,) in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index",
            [table]).fetchall() if c not in PROVENANCE]
        select = ", ".join(f'"{c}"' for c in columns)
        out[table] = sorted(con.execute(f'SELECT {select} FROM "{table}" WHERE run_id = ?', [run_id]).fetchall(),
                            key=repr)
    return out


@pytest.mark.parametrize("seed", [CHAPTER3, HANDBOOK], ids=["chapter3", "handbook"])
@pytest.mark.parametrize("kind", ["pandas", "arrow", "dicts"])
def test_tables_in_memory_load_the_same_run_as_the_folder(tmp_path: Path, seed: Path, kind: str) -> None:
    db = tmp_path / "wh.duckdb"
    evalwh.load_run(db, seed, run="folder")
    names = [p.stem for p in sorted(seed.glob("*.csv"))]
    frames: dict[str, Any] = {}
    for name in names:
        rows = read_rows(seed, name)  # every value text, as a CSV gives it
        frames[name] = {"pandas": lambda r: pd.DataFrame(r, dtype="string"), "arrow": pa.Table.from_pylist,
                        "dicts": lambda r: r}[kind](rows)
    toml = seed / "run.toml"
    overrides = {}
    if toml.exists():
        import tomllib

        document = tomllib.loads(toml.read_text(encoding="utf-8"))
        overrides = {k: v for table in document.values() for k, v in table.items()}
    evalwh.load_frames(db, frames, run="memory", overrides=overrides)
    with open_warehouse(db) as con:
        folder, memory = tables_of(con, "folder"), tables_of(con, "memory")
        assert folder.keys() == memory.keys()
        for table in folder:
            assert memory[table] == folder[table], table
        assert con.execute("SELECT source FROM runs WHERE run_id = 'memory'").fetchall() == [("tables in memory",)]


def test_the_same_bad_row_gives_the_same_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(CHAPTER3, bad)
    claims = read_rows(CHAPTER3, "claims")
    claims[4]["claim_id"] = claims[1]["claim_id"]  # row 5 repeats row 2's id
    with (bad / "claims.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(claims[0]))
        writer.writeheader()
        writer.writerows(claims)
    db = tmp_path / "wh.duckdb"
    with pytest.raises(InputError) as from_folder:
        evalwh.load_run(db, bad)
    tables = {name: read_rows(CHAPTER3, name) for name in ("chunks", "citations")}
    for given in (claims, pd.DataFrame(claims)):
        with pytest.raises(InputError) as from_memory:
            evalwh.load_frames(db, {**tables, "claims": given}, run="m")
        assert (from_memory.value.file, from_memory.value.row, from_memory.value.column, from_memory.value.detail) \
            == ("table claims", from_folder.value.row, from_folder.value.column, from_folder.value.detail)
        assert str(from_memory.value) == "table claims, row 5, column claim_id: duplicate id 'c2' (first at row 2)"
    assert not db.exists() or evalwh.Warehouse(db).views() == []  # nothing written


def test_a_missing_column_and_an_unknown_table_are_named(tmp_path: Path) -> None:
    chunks = [{"chunk_id": "h1"}]
    with pytest.raises(InputError, match=r"^table chunks, column text: missing column .text."):
        evalwh.load_frames(tmp_path / "wh.duckdb", {"chunks": chunks, "claims": []}, run="x")
    with pytest.raises(UsageError, match="no table named 'claim' .*did you mean 'claims'"):
        evalwh.load_frames(tmp_path / "wh.duckdb", {"claim": []}, run="x")
    with pytest.raises(InputError, match=r"^table claims, row 2: expected a dict per row"):
        evalwh.load_frames(tmp_path / "wh.duckdb", {"chunks": [], "claims": [{"claim_id": "c"}, "c2"]}, run="x")


def test_views_come_back_as_relations_of_one_run(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    with evalwh.Warehouse(db) as wh:
        wh.load(CHAPTER3, run="a")
        wh.load(CHAPTER3, run="b", dataset="chapter3")
        statuses = wh.view("claim_status", run="a")
        assert statuses.columns[:2] == ["run_id", "claim_id"] or "status" in statuses.columns
        frame = statuses.df()
        # the chapter's claims: c1, c3, c7, c8 supported (the rules in docs/rules.md)
        assert sorted(frame.loc[frame.status == "SUPPORTED", "claim_id"]) == ["c1", "c3", "c7", "c8"]
        assert set(frame.run_id) == {"a"}
        assert len(wh.view("claim_status", run=None).fetchall()) == 16
        assert wh.view("claims").to_arrow_table().num_rows == 8  # latest: b
        assert wh.metrics("a")["supported_share"] == 0.5
        result = wh.check(max={"DANGLING": 0}, max_regressions={"claims": 0})
        assert not result.ok and [o.metric for o in result.failed] == ["dangling"]
        with pytest.raises(UsageError, match="no table or view named 'claim_stats'"):
            wh.view("claim_stats")


def test_the_notebook_page_prints_what_it_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out, printed = run_page_example("notebook.md")
    assert out == printed
    # c2 quotes 16 weeks and says 12: NUMBER_MISMATCH; one of two claims supported
    assert "c2 NUMBER_MISMATCH" in printed and "supported share 0.5\n" in printed
    assert (tmp_path / "out" / "report.html").exists()


FRESH_PROCESS_LOAD = """
import sys
from pathlib import Path
import polars as pl, pyarrow as pa
import evalwh
assert "duckdb" not in sys.modules  # the caller has not imported the duckdb package; evalwh takes its engine
chunks = pa.Table.from_pylist([{"chunk_id": "k1", "text": "Refunds are due within 30 days."}])
claims = pl.DataFrame([{"claim_id": "c1", "text": "Refunds within 30 days.", "quote": "within 30 days",
                        "cited": ["k1"]}])
evalwh.load_frames(Path(sys.argv[1]), {"chunks": chunks, "claims": claims}, run="fresh")
from evalwh.warehouse import open_warehouse
with open_warehouse(Path(sys.argv[1])) as con:
    print(con.execute("SELECT claim_id, status FROM claim_status").fetchall())
"""


def test_arrow_and_polars_tables_load_in_a_process_that_never_imported_duckdb(tmp_path: Path) -> None:
    # a fresh interpreter: this test process has imported the duckdb package, whose Python layer reads Arrow and Polars
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS_LOAD, str(tmp_path / "wh.duckdb")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[('c1', 'SUPPORTED')]"


# what a notebook does before asking for a relation: nothing, or any public method of the face
BEFORE = {
    "nothing": lambda wh: None,
    "runs": lambda wh: wh.runs().fetchall(),
    "view": lambda wh: wh.view("claim_status").fetchall(),
    "sql": lambda wh: wh.sql("SELECT count(*) FROM claims").fetchall(),
    "metrics": lambda wh: wh.metrics(),
    "run_id": lambda wh: wh.run_id("latest"),
    "views": lambda wh: wh.views(),
    "check": lambda wh: wh.check(min={"claims": 1}, max_regressions={"claims": 0}),
    "report": lambda wh: wh.report(fmt="md"),
    "load": lambda wh: wh.load(CHAPTER3, run="again", label="again"),
    "load identical": lambda wh: wh.load(CHAPTER3, run="chapter3", label=None, dataset="chapter3"),
}
RELATIONS = {
    "runs": lambda wh: wh.runs(),
    "view": lambda wh: wh.view("claim_status"),
    "every run's view": lambda wh: wh.view("claim_status", run=None),
    "sql": lambda wh: wh.sql("SELECT run_id, count(*) AS n FROM claims GROUP BY ALL ORDER BY ALL"),
}


@pytest.fixture(scope="module")
def chapter3_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("nb") / "wh.duckdb"
    evalwh.load_run(db, CHAPTER3, run="chapter3", default_dataset="chapter3")
    return db


@pytest.mark.parametrize("relation", list(RELATIONS))
@pytest.mark.parametrize("before", list(BEFORE))
def test_every_relation_fetches_prints_and_fetches_again_after_any_method(
    chapter3_db: Path, tmp_path: Path, before: str, relation: str,
) -> None:
    db = tmp_path / "wh.duckdb"
    shutil.copy(chapter3_db, db)
    with evalwh.Warehouse(db) as wh:
        BEFORE[before](wh)
        rel = RELATIONS[relation](wh)
        first = rel.fetchall()
        assert first and rel.fetchall() == first  # fetched twice
        assert str(rel).count("\n") >= len(first[:5])  # printed
        assert len(rel.df()) == len(first)
        again = RELATIONS[relation](wh)  # asked for again, after all that
        assert again.fetchall() == first
        BEFORE[before](wh)  # and the method once more after the relations
        assert RELATIONS[relation](wh).fetchall() == first or before.startswith("load")


def test_the_face_is_listed_and_typed() -> None:
    names = set(dir(evalwh))
    assert {"Warehouse", "load_run", "load_frames", "import_logs", "open_warehouse", "materialize",
            "build_report", "queries", "Invocation", "__version__"} <= names
    assert (REPO / "cli" / "evalwh" / "py.typed").is_file()
    # what type checkers see of the lazy face: each name imported under TYPE_CHECKING from where it lives
    source = (REPO / "cli" / "evalwh" / "__init__.py").read_text(encoding="utf-8")
    for name in evalwh.__all__:
        if name != "__version__":
            assert f"import {name} as {name}" in source, name


def test_overrides_take_run_toml_s_shape_and_name_an_unknown_key(tmp_path: Path) -> None:
    wh = evalwh.Warehouse(tmp_path / "wh.duckdb")
    result = wh.load(HANDBOOK, run="nested", overrides={"retrieval": {"top_k": 2}, "reader": {"format": "two_line"}})
    flat = wh.load(HANDBOOK, run="flat", overrides={"top_k": 2})
    assert result.counts == flat.counts
    assert wh.sql("SELECT DISTINCT params->>'top_k' FROM runs").fetchall() == [("2",)]
    with pytest.raises(UsageError, match=r"unknown key 'fromat' in \[reader\] \(allowed: abstain_marker"):
        wh.load(HANDBOOK, run="x", overrides={"reader": {"fromat": "bracket"}})
    with pytest.raises(UsageError, match="unknown key 'readr'"):
        wh.load(HANDBOOK, run="x", overrides={"readr": {"format": "bracket"}})
    wh.close()


def test_type_checkers_see_the_lazy_face(tmp_path: Path) -> None:
    """mypy, as a user's editor or CI runs it over their code: the face's names are the classes and
    functions they stand for, not Any."""
    import os

    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs the lint extra (mypy)")
        pytest.skip("needs mypy (pip install 'evalwh[lint]')")
    user = tmp_path / "user.py"
    user.write_text("import evalwh\nreveal_type(evalwh.Warehouse)\nreveal_type(evalwh.load_run)\n"
                    "reveal_type(evalwh.Warehouse('w.duckdb').runs())\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(user)],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "MYPYPATH": str(REPO / "cli")})
    revealed = re.findall(r'Revealed type is "(.*)"', done.stdout)
    assert len(revealed) == 3, done.stdout
    assert revealed[0].startswith("def (db: ") and revealed[0].endswith("-> evalwh.notebook.Warehouse")
    assert revealed[1].endswith("-> evalwh.loader.load.LoadResult")
    assert revealed[2].endswith("DuckDBPyRelation")
