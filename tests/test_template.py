"""A new warehouse copied from the cached empty one is the warehouse the schema steps create."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest

from evalwh.loader import load_run
from evalwh.warehouse import open_warehouse
from evalwh.warehouse.storage import storage_version
from evalwh.warehouse.template import CACHE_ENV, copy_new, template_key, template_path
from tests.conftest import CHAPTER3, rows


def catalog(path: Path) -> dict[str, list[str]]:
    """Everything DuckDB knows of a warehouse's make-up, and its schema steps (not when they ran)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        queries = {
            "tables": "SELECT table_name, sql, comment FROM duckdb_tables() WHERE NOT internal",
            "columns": "SELECT table_name, column_name, column_index, data_type, column_default, is_nullable, comment "
                       "FROM duckdb_columns() WHERE NOT internal",
            "views": "SELECT view_name, sql, comment FROM duckdb_views() WHERE NOT internal",
            "constraints": "SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints()",
            "indexes": "SELECT index_name, table_name, sql FROM duckdb_indexes()",
            "sequences": "SELECT sequence_name, start_value FROM duckdb_sequences()",
            "macros": "SELECT function_name, macro_definition FROM duckdb_functions() WHERE NOT internal",
            "schema_version": "SELECT version, evalwh FROM schema_version",
        }
        return {name: sorted(repr(row) for row in con.execute(sql).fetchall()) for name, sql in queries.items()}
    finally:
        con.close()


def created_directly(path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with monkeypatch.context() as patch:
        patch.setenv(CACHE_ENV, "")
        with open_warehouse(path, write=True):
            pass
    return path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


def test_a_copy_is_the_warehouse_the_steps_create(tmp_path: Path, cache: Path, monkeypatch) -> None:
    direct = created_directly(tmp_path / "direct.duckdb", monkeypatch)
    assert not cache.exists()  # with the cache off, nothing was kept
    first, second = tmp_path / "first.duckdb", tmp_path / "second.duckdb"
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    with open_warehouse(first, write=True):  # builds the template, then copies it
        pass
    template = template_path("v1.4.0")
    assert template is not None and template.is_file() and [p.name for p in cache.iterdir()] == [template.name]
    built = template.stat().st_mtime_ns
    with open_warehouse(second, write=True):  # copies it
        pass
    assert template.stat().st_mtime_ns == built
    want = catalog(direct)
    assert catalog(first) == want and catalog(second) == want
    assert storage_version(second) == storage_version(direct)
    # each file's schema steps carry the moment that file was made, not the template's
    stamps = rows(second, "SELECT DISTINCT applied_at FROM schema_version")
    template_stamps = rows(template, "SELECT DISTINCT applied_at FROM schema_version")
    assert len(stamps) == 1 and stamps[0][0] >= before and stamps != template_stamps
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())  # no scratch copy left beside it


def test_runs_load_alike_into_a_copy_and_a_created_file(tmp_path: Path, cache: Path, monkeypatch) -> None:
    direct = created_directly(tmp_path / "direct.duckdb", monkeypatch)
    copied = tmp_path / "copied.duckdb"
    for path in (direct, copied):
        load_run(path, CHAPTER3, run="a")
    metrics = "SELECT metric, value FROM metrics_history ORDER BY metric"
    assert rows(copied, metrics) == rows(direct, metrics) and len(rows(copied, metrics)) > 20
    status = "SELECT claim_id, status FROM claim_status ORDER BY claim_id"
    assert rows(copied, status) == rows(direct, status)


def test_a_damaged_template_is_discarded_and_the_file_created(tmp_path: Path, cache: Path) -> None:
    template = template_path("v1.4.0")
    assert template is not None
    cache.mkdir()
    template.write_bytes(b"\0" * 8 + b"DUCK" + b"\xff" * 4096)  # looks like DuckDB's, does not open
    path = tmp_path / "wh.duckdb"
    load_run(path, CHAPTER3, run="a")
    assert rows(path, "SELECT count(*) FROM claim_status") == [(8,)]
    assert not template.exists()  # discarded: the next new warehouse builds it again
    load_run(tmp_path / "next.duckdb", CHAPTER3, run="a")
    assert catalog(template) == catalog(path)


@pytest.mark.parametrize("setting", ["", "file"])
def test_without_a_usable_cache_the_file_is_created(tmp_path: Path, monkeypatch, setting: str) -> None:
    if setting == "file":  # a cache directory that cannot be made: a file is in its way
        (tmp_path / "in-the-way").write_text("x")
        setting = str(tmp_path / "in-the-way" / "cache")
    monkeypatch.setenv(CACHE_ENV, setting)
    path = tmp_path / "wh.duckdb"
    load_run(path, CHAPTER3, run="a")
    assert rows(path, "SELECT count(*) FROM claim_status") == [(8,)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["wh.duckdb", *(["in-the-way"] if "way" in setting else [])])


def test_the_template_follows_what_makes_a_warehouse(monkeypatch) -> None:
    import evalwh.warehouse.template as template
    from evalwh.resources import model_sources, schema_steps

    base = template_key("v1.4.0")
    assert template_key("v1.5.0") != base
    models = model_sources()
    monkeypatch.setattr(template, "model_sources", lambda: {**models, "claim_status": models["claim_status"] + " "})
    assert template_key("v1.4.0") != base
    monkeypatch.undo()
    steps = schema_steps()
    monkeypatch.setattr(template, "schema_steps", lambda: steps[:-1])
    assert template_key("v1.4.0") != base
    monkeypatch.undo()
    monkeypatch.setattr(template.duckdb, "__version__", "0.0.0")
    assert template_key("v1.4.0") != base


def test_a_copy_never_replaces_a_file(tmp_path: Path) -> None:
    source, taken = tmp_path / "source", tmp_path / "taken"
    source.write_bytes(b"template")
    taken.write_bytes(b"someone's")
    assert copy_new(source, taken) is False
    assert taken.read_bytes() == b"someone's"
    assert copy_new(source, tmp_path / "free") is True and (tmp_path / "free").read_bytes() == b"template"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["free", "source", "taken"]


def test_a_template_duckdb_cannot_build_leaves_the_file_to_be_created(tmp_path: Path, cache: Path, monkeypatch) -> None:
    import evalwh.warehouse.connection as connection

    def full_disk(path: Path) -> None:
        path.write_bytes(b"half")
        raise duckdb.IOException("No space left on device")

    monkeypatch.setattr(connection, "_build_empty_warehouse", full_disk)
    path = tmp_path / "wh.duckdb"
    load_run(path, CHAPTER3, run="a")
    assert rows(path, "SELECT count(*) FROM claim_status") == [(8,)]
    assert list(cache.iterdir()) == []  # neither a template nor its half-built file is left


def test_a_copy_another_process_holds_is_left_to_it(tmp_path: Path, cache: Path, monkeypatch) -> None:
    """Another process that opened the new copy first and holds it past --wait: the copy is its warehouse
    now, so it is neither deleted nor taken for a damaged template."""
    import evalwh.warehouse.connection as connection
    from evalwh.errors import WarehouseError

    path = tmp_path / "wh.duckdb"

    def held(con: duckdb.DuckDBPyConnection, at: Path, mode: str, invocation: object, alias: str = "") -> None:
        raise WarehouseError(f"{at}: the warehouse is locked by another process (waited 0 s; --wait sets how long)")

    monkeypatch.setattr(connection, "_attach_waiting", held)
    with pytest.raises(WarehouseError, match="locked by another process"):
        load_run(path, CHAPTER3, run="a")
    template = template_path("v1.4.0")
    assert template is not None and template.is_file() and path.is_file()


def test_a_template_other_code_made_is_brought_up_to_date(tmp_path: Path, cache: Path) -> None:
    """A template whose views this release would not write (another build's, by the same key): the copy is
    migrated like any file, so the warehouse holds this release's views."""
    with open_warehouse(tmp_path / "first.duckdb", write=True):
        pass
    template = template_path("v1.4.0")
    assert template is not None
    with duckdb.connect(str(template)) as con:
        con.execute("COMMENT ON VIEW claim_status IS 'another build'")
    path = tmp_path / "wh.duckdb"
    load_run(path, CHAPTER3, run="a")
    assert catalog(path) == catalog(tmp_path / "first.duckdb")
    assert rows(path, "SELECT count(*) FROM claim_status") == [(8,)]
