"""Fuzzing: random run folders (CSV, JSONL, Parquet) and random log lines never crash evalwh.

Every command ends with exit 0 (loaded) or 2 (bad input, one ``evalwh: error:`` line): never a
traceback, never exit 3, which means the warehouse is at fault. About a minute in all.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader.validate import SPECS
from tests.conftest import CHAPTER3

KNOWN = sorted({c for spec in SPECS.values() for c in spec.required + spec.optional})
# text that exercises quoting, separators, line breaks, numbers, markup and non-ASCII
TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "a,b", 'say "hi"', "x\ny", "\r", "\t", "1.5", "NaN", "1e400", "-3", "[1]",
                     "true", "None", "İ", "ß", "=1+1", "[bold]x[/]", "handbook-1", "q1", "c1", "answer",
                     "refuse", "\ufeff", "\x00"]),
)
JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
              st.floats(allow_nan=False), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=6,
)
COLUMN = st.one_of(st.sampled_from(KNOWN), st.sampled_from(["", "rowid", "question_idd", "Text"]), st.text(max_size=6))


@st.composite
def table(draw: st.DrawFn, kind: str) -> tuple[list[str], list[list[Any]]]:
    """A header (mostly the kind's own columns, sometimes not) and rows of awkward values."""
    spec = SPECS[kind]
    own = list(spec.required + spec.optional)
    header = draw(st.one_of(st.just(list(spec.required)), st.lists(st.sampled_from(own), min_size=1, unique=True),
                            st.lists(COLUMN, min_size=1, max_size=4, unique=True)))
    value = JSON_VALUE if draw(st.booleans()) else TEXT
    rows = draw(st.lists(st.lists(value, min_size=len(header), max_size=len(header)), max_size=4))
    return header, rows


def write(folder: Path, kind: str, fmt: str, header: list[str], rows: list[list[Any]]) -> None:
    path = folder / f"{kind}.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(dict(zip(header, row, strict=False))) + "\n" for row in rows), encoding="utf-8")
    elif fmt == "parquet":
        con = duckdb.connect()
        try:
            con.execute("CREATE TABLE t AS SELECT * FROM read_json(?, format='array')",
                        [_json_file(folder, [dict(zip(header, row, strict=False)) for row in rows] or [{c: None for c in header}])])
            con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
        except duckdb.Error:
            path.write_bytes(b"PAR1")  # what DuckDB cannot turn into Parquet becomes a broken Parquet file
        finally:
            con.close()
    else:
        import csv

        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
            writer.writerow(header)
            writer.writerows([["" if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in row]
                              for row in rows])


def _json_file(folder: Path, records: list[dict]) -> str:
    path = folder / ".records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return str(path)


FOLDER = st.dictionaries(
    st.sampled_from(["chunks", "claims", "citations", "questions", "retrievals", "responses"]),
    st.tuples(st.sampled_from(["csv", "tsv", "jsonl", "parquet"]), st.booleans()),
    min_size=1,
)


def assert_clean_exit(result: Any) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 2), result.stderr
    event(f"exit {result.exit_code}")
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("evalwh: error: "), result.stderr


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(files=FOLDER, data=st.data())
def test_random_run_folders_load_or_exit_2(files: dict[str, tuple[str, bool]], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        folder.mkdir()
        for kind, (fmt, raw_bytes) in files.items():
            if raw_bytes and fmt != "parquet":
                (folder / f"{kind}.{fmt}").write_bytes(data.draw(st.binary(max_size=40)))
            else:
                write(folder, kind, fmt, *data.draw(table(kind)))
        (folder / ".records.json").unlink(missing_ok=True)
        result = CliRunner().invoke(app, ["--db", str(Path(scratch) / "wh.duckdb"), "load", str(folder)])
        assert_clean_exit(result)
        shutil.rmtree(folder)


REQUEST_KEYS = ["request_id", "ts", "session_id", "question", "answer", "refused", "model", "retrieved", "cited"]
LOG_LINE = st.one_of(
    st.fixed_dictionaries({"request_id": st.sampled_from(["r1", "r2", "r3"])},
                          optional={k: JSON_VALUE for k in REQUEST_KEYS[1:]}),
    st.dictionaries(st.sampled_from(REQUEST_KEYS), JSON_VALUE, max_size=5),
    st.builds(lambda r: {"request_id": "r9", "retrieved": r, "cited": r},
              st.lists(st.dictionaries(st.sampled_from(["chunk_id", "score", "quote", "content"]), JSON_VALUE))),
    TEXT,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LOG_LINE, min_size=1, max_size=5), fmt=st.sampled_from(["evalwh", "openinference", "otlp",
                                                                                 "anthropic", "ragas", None]),
       skip_bad=st.booleans())
def test_random_log_lines_import_or_exit_2(lines: list[Any], fmt: str | None, skip_bad: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "log.jsonl"
        path.write_text("".join((x if isinstance(x, str) else json.dumps(x)).replace("\n", " ") + "\n" for x in lines),
                        encoding="utf-8")
        args = ["--db", str(Path(scratch) / "wh.duckdb"), "logs", "import", str(path)]
        args += ["--log-format", fmt] if fmt else []
        args += ["--skip-bad"] if skip_bad else []
        assert_clean_exit(CliRunner().invoke(app, args))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["chunks", "claims", "citations", "questions"]), fmt=st.sampled_from(["csv", "jsonl"]),
       row=st.integers(min_value=0, max_value=8), column=st.integers(min_value=0, max_value=3), value=JSON_VALUE)
def test_one_awkward_value_in_the_seed_loads_or_exits_2(kind: str, fmt: str, row: int, column: int, value: Any) -> None:
    """The chapter-3 seed with one cell replaced: deeper than a random folder gets, into validation and writing."""
    import csv

    from tests.conftest import CHAPTER3

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        shutil.copytree(CHAPTER3, folder)
        with (folder / f"{kind}.csv").open(encoding="utf-8", newline="") as handle:
            header, *rows = list(csv.reader(handle))
        if rows:
            cells = rows[row % len(rows)]
            cells[column % len(cells)] = value
        (folder / f"{kind}.csv").unlink()
        write(folder, kind, fmt, header, rows)
        result = CliRunner().invoke(app, ["--db", str(Path(scratch) / "wh.duckdb"), "load", str(folder)])
        assert_clean_exit(result)


LOGS = Path(__file__).parent / "logs"
SAMPLE_FORMATS = {"anthropic.jsonl": "anthropic", "openinference.jsonl": "openinference",
                  "openinference_provider.jsonl": "openinference", "otlp.json": "otlp", "ragas.jsonl": "ragas",
                  "evalwh.jsonl": "evalwh"}


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (keys and list indexes), the value itself first."""
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += places(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += places(inner, (*path, index))
    return found


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def write_mutated_sample(folder: Path, sample: str, pick: int, value: Any) -> Path:
    """The sample log, one record a line, with the value at its pick-th place (of every record's places)
    replaced by ``value``; written to ``folder`` under the sample's name."""
    text = (LOGS / sample).read_text(encoding="utf-8")
    records = [json.loads(text)] if sample.endswith(".json") else [json.loads(x) for x in text.splitlines() if x]
    spots = [(i, path) for i, record in enumerate(records) for path in places(record)[1:]]
    index, path = spots[pick % len(spots)]
    records[index] = replaced(records[index], path, value)
    log = folder / sample
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return log


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sample=st.sampled_from(sorted(SAMPLE_FORMATS)), pick=st.integers(min_value=0), value=JSON_VALUE,
       skip_bad=st.booleans())
def test_one_awkward_value_in_a_sample_log_imports_or_exits_2(sample: str, pick: int, value: Any,
                                                             skip_bad: bool) -> None:
    """A sample log of each format with one value anywhere in one record replaced: deep into each format's SQL."""
    with tempfile.TemporaryDirectory() as scratch:
        log = write_mutated_sample(Path(scratch), sample, pick, value)
        args = ["--db", str(Path(scratch) / "wh.duckdb"), "logs", "import", str(log),
                "--log-format", SAMPLE_FORMATS[sample]]
        assert_clean_exit(CliRunner().invoke(app, [*args, *(["--skip-bad"] if skip_bad else [])]))


def compressed(data: bytes, codec: str) -> bytes:
    """``data`` gzip- or zstd-compressed by each format's own library (zstd with its content checksum)."""
    if codec == "gz":
        import gzip

        return gzip.compress(data, mtime=0)
    import zstandard

    return zstandard.ZstdCompressor(write_checksum=True, write_content_size=True).compress(data)


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


DAMAGE = st.one_of(
    st.tuples(st.just("cut"), st.integers(min_value=1)),           # the file ends early
    st.tuples(st.just("flip"), st.integers(min_value=0)),          # one byte changed
    st.tuples(st.just("insert"), st.integers(min_value=0)),        # one byte added
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["chunks", "claims", "citations", "questions"]), codec=st.sampled_from(["gz", "zst"]),
       damage=DAMAGE, byte=st.integers(1, 255))
def test_a_damaged_compressed_input_loads_the_same_or_exits_2(kind: str, codec: str, damage: tuple[str, int],
                                                               byte: int) -> None:
    """A gzip or zstd file damaged anywhere: exit 2 naming it, or (a byte the format does not check,
    such as gzip's stored time) the seed's statuses exactly."""
    how, where = damage
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        shutil.copytree(CHAPTER3, folder)
        plain = (folder / f"{kind}.csv").read_bytes()
        (folder / f"{kind}.csv").unlink()
        data = bytearray(compressed(plain, codec))
        at = where % len(data)
        if how == "cut":
            data = data[: max(0, len(data) - 1 - where % len(data))]
        elif how == "flip":
            data[at] ^= byte
        else:
            data.insert(at, byte)
        (folder / f"{kind}.csv.{codec}").write_bytes(bytes(data))
        db = Path(scratch) / "wh.duckdb"
        result = CliRunner().invoke(app, ["--db", str(db), "load", str(folder)])
        assert_clean_exit(result)
        if result.exit_code == 2:
            assert f"{kind}.csv.{codec}" in result.stderr
            assert not db.exists()
        else:
            con = duckdb.connect(str(db), read_only=True)
            got = con.execute("SELECT claim_id, status FROM claim_status ORDER BY claim_id").fetchall()
            con.close()
            seed = Path(scratch) / "seed.duckdb"
            assert CliRunner().invoke(app, ["--db", str(seed), "load", str(CHAPTER3)]).exit_code == 0
            con = duckdb.connect(str(seed), read_only=True)
            assert got == con.execute("SELECT claim_id, status FROM claim_status ORDER BY claim_id").fetchall()
            con.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["chunks", "claims", "citations", "questions"]),
       name=st.binary(min_size=1, max_size=6).filter(lambda b: not is_utf8(b) and not set(b) & set(b',\t\n\r"')),
       tsv=st.booleans())
def test_a_column_name_that_is_not_utf8_exits_2_with_a_printable_line(kind: str, name: bytes, tsv: bool) -> None:
    """A header naming a column in bytes that are not UTF-8 (CSV, or TSV for the citations, whose values
    hold no comma): exit 2 at the header, the bytes shown readably (\\xc4), never as lone surrogates."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "run"
        shutil.copytree(CHAPTER3, folder)
        header, body = (folder / f"{kind}.csv").read_bytes().split(b"\n", 1)
        (folder / f"{kind}.csv").unlink()
        if tsv and kind == "citations":
            (folder / f"{kind}.tsv").write_bytes(header.replace(b",", b"\t") + b"\t" + name + b"\n"
                                                  + body.replace(b",", b"\t"))
        else:
            (folder / f"{kind}.csv").write_bytes(header + b"," + name + b"\n" + body)
        result = CliRunner().invoke(app, ["--db", str(Path(scratch) / "wh.duckdb"), "load", str(folder)])
        assert_clean_exit(result)
        assert result.exit_code == 2
        assert "line 1 (the header), byte " in result.stderr
        result.stderr.encode("utf-8")  # printable: no lone surrogate
