"""The published JSON Schemas (docs/schemas, from evalwh.loader.input_schema) agree with the loader.

Every record of every bundled seed passes its schema; and for every kind of bad input in
tests/test_bad_input.py that a record's schema can express (a missing or unknown column, an empty
id, a value of the wrong type or out of its closed set), the schema rejects the very record the
loader names. The kinds beyond one record (a repeated id, an unknown reference, a file's encoding)
are counted apart, so a new kind of case is never silently left out.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import pytest

from evalwh.errors import EvalwhError, InputError
from evalwh.loader import load_run
from evalwh.loader.input_schema import all_schemas
from evalwh.loader.validate import SPECS
from tests.conftest import REPO
from tests.test_bad_input import CASES

SCHEMAS = all_schemas()
# record-level rules a JSON Schema cannot state exactly, each with the reason (the schema accepts these)
SCHEMA_CANNOT = {
    "score overflows to infinity": "a pattern cannot tell a decimal beyond DOUBLE's range (1e400) from one within",
}
# the loader's messages a record's schema can express: the record named must fail its schema
RECORD_RULES = re.compile(
    r"missing column|unknown column|empty id|id contains a tab or newline|unknown expected value|"
    r"rank must be a whole number|score must be a finite (?:plain decimal )?number|refused must be true or false|"
    r"^expected (?:a string|a whole number|a number|true or false|a list)|missing key|is null|cited ids must be non-empty")
# what needs more than one record, another file or the file's bytes: the loader's alone
BEYOND_A_RECORD = re.compile(
    r"duplicate id|unknown (?:claim|chunk|question)|has this rank twice|missing file|need a .* file beside|"
    r"both .* are present|UTF-8|byte.order mark|malformed|not valid|empty file|no such|unreadable|"
    r"compressed|repeated|written twice|not a file|longer than|for reader format|column names|header|"
    r"gzip|zstd|rows? of|extension|\.toml|stopwords|symbolic link|is a directory|not JSON|JSON|broken link|"
    # a name given twice is gone once parsed; a ragged line is not a record; run.toml is not a record file
    r"have the same name|holds this key twice|cannot parse|cannot read|cited list and citations|unknown table|"
    r"unknown retriever|top_k")


def records(path: Path) -> list[dict[str, Any]] | None:
    """The records of an input file as a writer would hand them over (CSV: every value a string);
    None when the file is not readable as records at all."""
    name = path.name.removesuffix(".gz")
    try:
        if name.endswith((".csv", ".tsv")):
            opener = gzip.open if path.name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8", newline="") as handle:
                return list(csv.DictReader(handle, delimiter="\t" if name.endswith(".tsv") else ","))
        if name.endswith(".jsonl"):
            opener = gzip.open if path.name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as handle:
                return [json.loads(line) for line in handle if line.strip()]
        if name.endswith(".parquet"):
            con = duckdb.connect()
            rel = con.execute(f"SELECT * FROM read_parquet('{path}')")
            names = [d[0] for d in rel.description]
            return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]
    except (UnicodeDecodeError, json.JSONDecodeError, csv.Error, duckdb.Error, OSError, EOFError, ValueError):
        return None
    return None


def header(path: Path) -> list[str]:
    """The column names on a CSV or TSV file's first line."""
    with path.open(encoding="utf-8", errors="replace", newline="") as handle:
        return next(csv.reader(handle, delimiter="\t" if path.name.endswith(".tsv") else ","), [])


def kind_of(path: Path) -> str | None:
    stem = path.name.split(".")[0]
    return stem if stem in SPECS else None


def rejects(kind: str, record: Any) -> bool:
    return any(True for _ in jsonschema.Draft202012Validator(SCHEMAS[kind]).iter_errors(record))


@pytest.mark.parametrize("seed", sorted(p.name for p in (REPO / "seeds").iterdir() if p.is_dir() and p.name[0] not in "_."))
def test_every_record_of_the_bundled_seeds_passes_its_schema(seed: str) -> None:
    checked = 0
    for path in sorted((REPO / "seeds" / seed).iterdir()):
        kind = kind_of(path)
        if kind is None:
            continue
        rows = records(path)
        assert rows is not None, path
        for number, record in enumerate(rows, 1):
            assert not rejects(kind, record), (path.name, number, record)
            checked += 1
    assert checked > 0


def test_the_schemas_reject_every_record_level_kind_the_loader_rejects(tmp_path: Path) -> None:
    record_level: list[str] = []
    beyond: list[tuple[str, str]] = []
    other: list[tuple[str, str]] = []
    for number, case in enumerate(CASES):
        scratch = tmp_path / f"case{number}"
        scratch.mkdir()
        args = case.make(scratch)
        if args[0] != "load":
            continue  # log imports, option errors: not a run's input file
        try:
            load_run(tmp_path / "wh.duckdb", Path(args[1]), allow_extra="--allow-extra" in args)
        except InputError as error:
            found = error
        except EvalwhError:
            continue  # a usage or warehouse error, not a file's content
        else:
            continue  # refused by an option of this case, not by the loader's rules
        if not RECORD_RULES.search(found.detail):
            (beyond if BEYOND_A_RECORD.search(found.detail) else other).append((case.name, found.detail))
            continue
        if case.name in SCHEMA_CANNOT:
            continue
        path = Path(args[1]) / found.file
        kind = kind_of(path)
        rows = records(path) if path.exists() else None
        assert kind is not None and rows is not None, (case.name, str(found))
        if found.row is None:  # a column missing or unknown: the first record shows it (a file of no
            # records: one holding its header's columns)
            first = rows[0] if rows else dict.fromkeys(header(path), "")
            assert rejects(kind, first), (case.name, str(found))
        else:
            assert rejects(kind, rows[found.row - 1]), (case.name, str(found), rows[found.row - 1])
        record_level.append(case.name)
    assert other == [], ("a kind of bad input neither a record's schema nor a known cross-record rule", other)
    assert len(record_level) >= 15 and len(beyond) >= 10, (len(record_level), len(beyond))
