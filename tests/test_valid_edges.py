"""Valid inputs at the edges load as what they say, and a damaged warehouse file is left as it is.

Each was once refused or misread: a TSV field starting with a quote (TSV has no quoting), a run.toml
with a UTF-8 byte-order mark, a header cell with a trailing space, a citation marker of more digits
than an INT32 holds, and a lone surrogate (an undecodable byte) in a message.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import struct
from pathlib import Path

from typer.testing import CliRunner

from evalwh.app import app
from evalwh.errors import one_line
from tests.conftest import CHAPTER3, REPO, rows


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])


def test_a_tsv_field_starting_with_a_quote_is_text(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    for name in ("chunks", "claims", "citations"):
        with (CHAPTER3 / f"{name}.csv").open(encoding="utf-8", newline="") as source:
            table = list(csv.reader(source))
        if name == "claims":
            table[1][1] = '"Fourteen days," the handbook says'  # a quote mark opening the field, and one inside
        (folder / f"{name}.tsv").write_text("".join("\t".join(r) + "\n" for r in table), encoding="utf-8")
    result = run(db, "load", str(folder))
    assert result.exit_code == 0, result.stderr
    assert rows(db, "SELECT text FROM claims WHERE claim_id = 'c1'") == [('"Fourteen days," the handbook says',)]


def test_a_run_toml_with_a_byte_order_mark_is_read(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "hb"
    shutil.copytree(REPO / "seeds" / "handbook", folder)
    toml = folder / "run.toml"
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes().replace(b"top_k = 3", b"top_k = 2"))
    result = run(db, "load", str(folder))
    assert result.exit_code == 0, result.stderr
    assert rows(db, "SELECT max(rank) FROM retrievals") == [(2,)]  # the file's top_k, read past the mark


def test_a_header_cell_with_a_trailing_space_names_its_column(db: Path, tmp_path: Path) -> None:
    """`claim_id ` is the column claim_id: its citations resolve, and the statuses are the seed's."""
    folder = tmp_path / "run"
    shutil.copytree(CHAPTER3, folder)
    claims = folder / "claims.csv"
    claims.write_text(claims.read_text(encoding="utf-8").replace("claim_id,", "claim_id ,", 1), encoding="utf-8")
    assert run(db, "load", str(folder), "--run", "spaced").exit_code == 0
    assert run(db, "load", str(CHAPTER3), "--run", "plain").exit_code == 0
    statuses = "SELECT claim_id, status FROM claim_status WHERE run_id = ? ORDER BY claim_id"
    assert rows(db, statuses, ["spaced"]) == rows(db, statuses, ["plain"]) != []


def test_an_openinference_marker_beyond_int32_is_out_of_range(db: Path, tmp_path: Path) -> None:
    assert run(db, "seed").exit_code == 0
    span = {"name": "rag", "span_kind": "CHAIN", "parent_id": None, "start_time": "2026-12-01T09:00:00+00:00",
            "context": {"trace_id": "t-1", "span_id": "s-1"},
            "attributes": {"openinference.span.kind": "CHAIN", "input.value": "Laptop loan?",
                           "output.value": "Fourteen days [99999999999], or [1].",
                           "retrieval.documents.0.document.id": "handbook-1"}}
    log = tmp_path / "oi.jsonl"
    log.write_text(json.dumps(span) + "\n", encoding="utf-8")
    result = run(db, "logs", "import", str(log), "--log-format", "openinference")
    assert result.exit_code == 0, result.stderr
    assert rows(db, "SELECT chunk_id, resolution FROM log_citations ORDER BY position") == [
        (None, "out_of_range"), ("handbook-1", "resolved")]


def test_a_damaged_warehouse_file_is_named_and_left_byte_for_byte(db: Path) -> None:
    assert run(db, "seed").exit_code == 0
    data = bytearray(db.read_bytes())
    # the catalog's first block: the active one of DuckDB's two database headers (at 4096 and 8192, the one of the
    # higher iteration) names it in its third field (its low 56 bits); blocks of 256 KiB follow the headers
    headers = [struct.unpack_from("<3Q", data, at) for at in (4096, 8192)]
    meta = max(headers, key=lambda h: h[1])[2] & ((1 << 56) - 1)
    start = 12288 + meta * 262144
    data[start:start + 4096] = bytes(range(256)) * 16
    db.write_bytes(bytes(data))
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = run(db, "load", str(CHAPTER3), "--run", "again")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr.startswith(f"evalwh: error: {db}: the warehouse file is damaged and was left as it is: ")
    assert len(result.stderr.splitlines()) == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not Path(f"{db}.wal").exists()


def test_a_lone_surrogate_prints_as_the_byte_it_stands_for() -> None:
    name = b"quot\xc4".decode("utf-8", "surrogateescape")  # how Python carries an undecodable byte
    assert one_line(f"unknown column {name}") == "unknown column quot\\xc4"
    assert one_line(f"unknown column {name!r}") == "unknown column 'quot\\xc4'"  # repr's escape too
    assert one_line("a\ud800b") == "a\\ud800b"  # not a byte's stand-in: its code point
    assert one_line("two\nlines") == "two\\nlines"
    one_line(f"unknown column {name}").encode("utf-8")  # printable: no surrogate left
