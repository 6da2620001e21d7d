"""Every kind of bad input, one table: exit 2, one ``evalwh: error:`` line naming the file (row, column
or line where there is one), no traceback, and the warehouse byte-identical or still absent.

Each case builds its inputs in a scratch folder (a copy of a bundled seed, broken one way) and returns
the command line to run against a warehouse that holds the chapter-3 seed (or, for ``fresh`` cases,
against no warehouse at all, which must not exist afterwards).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from evalwh.app import app
from tests.conftest import CHAPTER3, REPO, write_table

LOGS = Path(__file__).resolve().parent / "logs"


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Path], list[str]]  # writes the inputs under the scratch folder, returns the arguments
    message: str  # expected inside the one stderr line
    fresh: bool = False  # no warehouse before the command (and none after)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def chapter(scratch: Path, change: Callable[[Path], object] = lambda d: None, *extra: str) -> list[str]:
    """The chapter-3 seed copied to ``scratch/run2``, changed, and the load command for it."""
    folder = scratch / "run2"
    shutil.copytree(CHAPTER3, folder)
    change(folder)
    return ["load", str(folder), *extra]


def handbook(scratch: Path, change: Callable[[Path], object] = lambda d: None, *extra: str) -> list[str]:
    folder = scratch / "hb"
    shutil.copytree(REPO / "seeds" / "handbook", folder)
    change(folder)
    return ["load", str(folder), *extra]


def to_jsonl(folder: Path, kind: str, records: list[dict]) -> None:
    """Replace ``<kind>.csv`` with ``<kind>.jsonl`` holding ``records``."""
    (folder / f"{kind}.csv").unlink(missing_ok=True)
    (folder / f"{kind}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def to_parquet(folder: Path, kind: str, select: str) -> None:
    """Replace ``<kind>.csv`` with a Parquet file written by DuckDB from ``select``."""
    (folder / f"{kind}.csv").unlink(missing_ok=True)
    con = duckdb.connect()
    con.execute(f"COPY ({select}) TO '{folder / f'{kind}.parquet'}' (FORMAT parquet)")
    con.close()


def retrievals(rows: list[list[str]]) -> Callable[[Path], object]:
    return lambda d: write_table(d / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"], rows)


def log_file(scratch: Path, name: str, lines: list[str | bytes], *extra: str) -> list[str]:
    path = scratch / name
    path.write_bytes(b"".join(x if isinstance(x, bytes) else x.encode("utf-8") + b"\n" for x in lines))
    return ["logs", "import", str(path), *extra]


REQUEST = {"request_id": "r1", "ts": "2026-11-30T09:15:00Z", "question": "How long can I keep a laptop?",
           "answer": "14 days [handbook-1].", "refused": False,
           "retrieved": [{"chunk_id": "handbook-1", "score": 0.8}],
           "cited": [{"chunk_id": "handbook-1", "quote": "within 14 days"}]}


def request(**fields: object) -> str:
    return json.dumps({**REQUEST, **fields})


def parquet_with_a_repeated_name(folder: Path) -> None:
    """chunks.parquet whose columns are chunk_id, text and text again (DuckDB writes no repeated
    name, so the third column is written as `texu` and renamed in the file's bytes)."""
    to_parquet(folder, "chunks", "SELECT 'handbook-1' AS chunk_id, 'first' AS text, 'second' AS texu")
    path = folder / "chunks.parquet"
    data = path.read_bytes()
    assert data.count(b"texu") == 2  # the schema's name and the column chunk's path
    path.write_bytes(data.replace(b"texu", b"text"))


def symlink_to_nothing(folder: Path) -> None:
    (folder / "claims.csv").unlink()
    os.symlink(folder / "no-such-file.csv", folder / "claims.csv")


def unwritable_output(scratch: Path) -> list[str]:
    (scratch / "afile").write_text("x", encoding="utf-8")
    return ["cases", "-o", str(scratch / "afile" / "cases.tsv")]


def gzipped(change: Callable[[bytes], bytes]) -> Callable[[Path], object]:
    """claims.csv replaced by claims.csv.gz, its gzip bytes changed by ``change``."""
    def make(folder: Path) -> None:
        import gzip

        data = gzip.compress((folder / "claims.csv").read_bytes(), mtime=0)
        (folder / "claims.csv").unlink()
        (folder / "claims.csv.gz").write_bytes(change(data))
    return make


def flip_crc(data: bytes) -> bytes:
    """The gzip trailer's CRC-32 (the 8 bytes before the last 4: CRC, then length) with its first byte flipped."""
    return data[:-8] + bytes([data[-8] ^ 0xFF]) + data[-7:]


def zstd_cut_short(folder: Path) -> None:
    """claims.csv as claims.csv.zst written by DuckDB, its last 5 bytes cut off (a download stopped early)."""
    con = duckdb.connect()
    con.execute(f"COPY (FROM read_csv('{folder / 'claims.csv'}')) TO '{folder / 'claims.csv.zst'}' "
                "(HEADER, COMPRESSION zstd)")
    con.close()
    (folder / "claims.csv").unlink()
    path = folder / "claims.csv.zst"
    path.write_bytes(path.read_bytes()[:-5])


def claims_jsonl_text(folder: Path, text: str) -> None:
    (folder / "claims.csv").unlink()
    (folder / "claims.jsonl").write_text(text, encoding="utf-8")


GOOD_CLAIM = '{"claim_id": "c1", "text": "Kept 14 days.", "quote": "within 14 days"}'


CASES: list[Case] = [
    # --- files of a run folder ---
    Case("missing chunks file", lambda s: chapter(s, lambda d: (d / "chunks.csv").unlink()), "chunks.csv: missing file"),
    Case("no claims and no questions", lambda s: chapter(s, lambda d: [(d / f).unlink() for f in
         ("claims.csv", "citations.csv", "questions.csv")]), "claims.csv: missing file: a run needs claims or questions"),
    Case("citations without claims", lambda s: chapter(s, lambda d: (d / "claims.csv").unlink()),
         "citations.csv: citations need a claims file beside them"),
    Case("semicolon-separated header", lambda s: chapter(s, lambda d: (d / "chunks.csv").write_text(
         "chunk_id;doc_id;text\nh1;d;Some text.\n", encoding="utf-8")),
         "chunks.csv, column chunk_id: missing column 'chunk_id' (found: chunk_id;doc_id;text); the header looks "
         "semicolon-separated"),
    Case("a JSONL acceptable answer holding |", lambda s: handbook(s, lambda d: to_jsonl(d, "questions", [
         {"question_id": "q1", "question": "?", "expected": "answer", "acceptable_answers": ["25 days", "a|b"]}])),
         "questions.jsonl, row 1, column acceptable_answers: expected a string or a list of strings, found a list "
         "holding a value that is not a string without |"),
    Case("two formats of one file", lambda s: chapter(s, lambda d: write_table(d / "chunks.jsonl", ["chunk_id", "text"],
         [["a", "b"]])), "both chunks.csv and chunks.jsonl are present"),
    Case("upper-case suffix", lambda s: chapter(s, lambda d: (d / "claims.csv").rename(d / "claims.CSV")),
         "claims.CSV: not a file evalwh reads (did you mean 'claims.csv'?)"),
    Case("claims.json", lambda s: chapter(s, lambda d: shutil.copy(d / "claims.csv", d / "claims.json")),
         "claims.json: not a file evalwh reads (did you mean 'claims.jsonl'?)"),
    Case("misspelt file name", lambda s: chapter(s, lambda d: shutil.copy(d / "citations.csv", d / "citation.csv")),
         "citation.csv: not a file evalwh reads (did you mean 'citations.csv'?)"),
    Case("directory named claims.csv", lambda s: chapter(s, lambda d: ((d / "claims.csv").unlink(),
         (d / "claims.csv").mkdir())), "claims.csv: is a directory, not a file"),
    Case("broken symlink", lambda s: chapter(s, symlink_to_nothing), "claims.csv: broken link"),
    Case("empty CSV file", lambda s: chapter(s, lambda d: (d / "claims.csv").write_bytes(b"")),
         "claims.csv: the file is empty; it needs a header row"),
    Case("not a directory", lambda s: ["load", str(s / "nowhere")], "nowhere: no such directory"),
    Case("a .gz file that is not gzip", lambda s: chapter(s, lambda d: (d / "claims.csv").rename(d / "claims.csv.gz")),
         "claims.csv.gz: not a valid gzip file"),
    Case("a file both plain and compressed", lambda s: chapter(s, lambda d: shutil.copy(d / "claims.csv",
         d / "claims.csv.zst")), "both claims.csv and claims.csv.zst are present"),
    Case("existing run with other input, without --replace", lambda s: ["seed", "--label", "another"],
         "run 'chapter3' already exists with other input; pass --replace"),
    # --- columns ---
    Case("missing column", lambda s: chapter(s, lambda d: edit(d / "chunks.csv", "chunk_id,doc_id,text",
         "chunk_id,doc_id,body")), "chunks.csv, column text: missing column 'text'"),
    Case("misspelt optional column", lambda s: chapter(s, lambda d: write_table(d / "claims.csv",
         ["claim_id", "text", "quote", "question_idd"], [["c1", "t", "q", "q1"]])),
         "claims.csv, column question_idd: unknown column (did you mean 'question_id'?); pass --allow-extra"),
    Case("unknown JSONL key", lambda s: chapter(s, lambda d: to_jsonl(d, "chunks", [
         {"chunk_id": "a", "text": "t", "txet": "u"}])), "chunks.jsonl, column txet: unknown column (did you mean 'text'?)"),
    Case("a CSV whose only column is rowid", lambda s: chapter(s, lambda d: (d / "questions.csv").write_text(
         "rowid\n1\n", encoding="utf-8")), "questions.csv, column question_id: missing column 'question_id' (found: rowid)"),
    Case("a CSV header naming a column twice", lambda s: chapter(s, lambda d: write_table(d / "chunks.csv",
         ["chunk_id", "text", "text"], [["handbook-1", "first", "second"]]), "--allow-extra"),
         "chunks.csv, column text: columns 2 and 3 have the same name; keep one"),
    Case("a TSV header naming a column twice in two cases", lambda s: chapter(s, lambda d: ((d / "claims.csv").unlink(),
         write_table(d / "claims.tsv", ["claim_id", "Quote", "text", "quote"], [["c1", "a", "b", "c"]]))),
         "claims.tsv, column quote: columns 2 and 4 have the same name; keep one"),
    Case("a Parquet file naming a column twice", lambda s: chapter(s, parquet_with_a_repeated_name, "--allow-extra"),
         "chunks.parquet, column text: columns 2 and 3 have the same name; keep one"),
    Case("a JSONL record writing a key twice", lambda s: chapter(s, lambda d: ((d / "chunks.csv").unlink(),
         (d / "chunks.jsonl").write_text('{"chunk_id": "a", "text": "t"}\n{"chunk_id": "b", "text": "first", '
                                         '"text": "second"}\n', encoding="utf-8"))),
         "chunks.jsonl, row 2, column text: the record holds this key twice; keep one"),
    Case("empty JSONL key", lambda s: chapter(s, lambda d: to_jsonl(d, "chunks", [{"chunk_id": "a", "text": "t", "": 1}])),
         "chunks.jsonl, column '': unknown column"),
    Case("header of control bytes", lambda s: chapter(s, lambda d: (d / "claims.csv").write_bytes(b"\x00\x01\x02\n")),
         "claims.csv, column claim_id: missing column 'claim_id'"),
    # --- ids ---
    Case("empty id", lambda s: chapter(s, lambda d: edit(d / "claims.csv", "c3,", ",")),
         "claims.csv, row 3, column claim_id: empty id"),
    Case("duplicate id", lambda s: chapter(s, lambda d: edit(d / "questions.csv", "q2,", "q1,")),
         "questions.csv, row 2, column question_id: duplicate id 'q1' (first at row 1)"),
    Case("duplicate chunk id", lambda s: chapter(s, lambda d: edit(d / "chunks.csv", "network-2,", "network-1,")),
         "chunks.csv, row 5, column chunk_id: duplicate id 'network-1' (first at row 4)"),
    Case("duplicate id after blank lines", lambda s: chapter(s, lambda d: (d / "claims.csv").write_text(
         "claim_id,text,quote\nc1,a,b\n\n\nc1,a,b\n", encoding="utf-8")),
         "claims.csv, row 2 (line 5), column claim_id: duplicate id 'c1' (first at row 1)"),
    Case("citation of unknown claim", lambda s: chapter(s, lambda d: edit(d / "citations.csv", "c5,network-1",
         "c9,network-1")), "citations.csv, row 4, column claim_id: unknown claim 'c9'"),
    Case("unknown expected", lambda s: chapter(s, lambda d: edit(d / "questions.csv", "refuse", "decline")),
         "questions.csv, row 7, column expected: unknown expected value 'decline'"),
    Case("tab in id", lambda s: chapter(s, lambda d: edit(d / "chunks.csv", "network-3,", '"network\t3",')),
         "chunks.csv, row 6, column chunk_id: id contains a tab or newline"),
    Case("newline in id", lambda s: chapter(s, lambda d: edit(d / "questions.csv", "u1,", '"u\n1",')),
         "questions.csv, row 7, column question_id: id contains a tab or newline"),
    Case("carriage return in id", lambda s: chapter(s, lambda d: edit(d / "claims.csv", "c3,", '"c3\r",')),
         "claims.csv, row 3, column claim_id: id contains a tab or newline"),
    Case("a 10 kB value is shown cut", lambda s: chapter(s, lambda d: edit(d / "questions.csv", ",refuse,",
         "," + "x" * 10_000 + ",")), "questions.csv, row 7, column expected: unknown expected value 'xxxx"),
    # --- CSV syntax ---
    Case("ragged CSV row", lambda s: chapter(s, lambda d: edit(d / "citations.csv", "c2,handbook-1",
         "c2,handbook-1,extra")), "citations.csv: line 3: cannot parse: Expected Number of Columns: 2 Found: 3"),
    Case("unclosed quote", lambda s: chapter(s, lambda d: (d / "claims.csv").write_text(
         'claim_id,text,quote\nc1,"a,b\nc2,a,b\n', encoding="utf-8")),
         "claims.csv: cannot parse as CSV: line 2: a quoted field starts on this line and is never closed"),
    Case("ragged 3 MB line", lambda s: chapter(s, lambda d: (d / "chunks.csv").write_text(
         "chunk_id,doc_id,text\nk1,d," + "x" * 3_000_000 + ",extra\n", encoding="utf-8")), "chunks.csv: "),
    # --- encodings ---
    Case("invalid UTF-8 in a CSV field", lambda s: chapter(s, lambda d: (d / "claims.csv").write_bytes(
         (d / "claims.csv").read_bytes().replace(b"Lost laptops", b"Lost \xfflaptops"))),
         "claims.csv, row 3, column text: text is not valid UTF-8"),
    Case("Windows-1252 CSV", lambda s: chapter(s, lambda d: (d / "claims.csv").write_bytes(
         (d / "claims.csv").read_text(encoding="utf-8").replace("Lost", "Lost \u2019").encode("cp1252"))),
         "claims.csv, row 3, column text: text is not valid UTF-8; the file looks like Windows-1252"),
    Case("UTF-16 CSV", lambda s: chapter(s, lambda d: (d / "claims.csv").write_bytes(
         (d / "claims.csv").read_text(encoding="utf-8").encode("utf-16"))),
         "claims.csv: the file is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8"),
    Case("UTF-32 JSONL", lambda s: chapter(s, lambda d: ((d / "chunks.csv").unlink(), (d / "chunks.jsonl").write_bytes(
         '{"chunk_id": "a", "text": "b"}\n'.encode("utf-32")))), "chunks.jsonl: the file is UTF-32"),
    Case("UTF-16 without a byte-order mark", lambda s: chapter(s, lambda d: ((d / "chunks.csv").unlink(),
         (d / "chunks.jsonl").write_bytes('{"chunk_id": "a", "text": "\u00e9"}\n'.encode("utf-16-le")))),
         "chunks.jsonl: line 1, byte 55: text is not valid UTF-8; the line holds NUL bytes: the file looks like UTF-16"),
    Case("invalid UTF-8 in JSONL", lambda s: chapter(s, lambda d: ((d / "questions.csv").unlink(),
         (d / "questions.jsonl").write_bytes(b'{"question_id":"q1","question":"ok","expected":"answer","gold":""}\n'
                                             b'{"question_id":"q2","question":"bad \xc3","expected":"answer","gold":""}\n'))),
         "questions.jsonl: line 2, byte 37: text is not valid UTF-8"),
    Case("invalid UTF-8 in stopwords.txt", lambda s: chapter(s, lambda d: (d / "stopwords.txt").write_bytes(b"the\n\xe9t\xe9\n")),
         "stopwords.txt: line 2, byte 1: text is not valid UTF-8"),
    # --- JSON lines ---
    Case("malformed JSON line", lambda s: chapter(s, lambda d: ((d / "chunks.csv").unlink(), (d / "chunks.jsonl").write_text(
         '{"chunk_id":"a","text":"x"}\n{"chunk_id":"b",\n', encoding="utf-8"))), "chunks.jsonl: line 2: malformed JSON at column 17"),
    Case("JSON line that is not an object", lambda s: chapter(s, lambda d: ((d / "chunks.csv").unlink(),
         (d / "chunks.jsonl").write_text('{"chunk_id":"a","text":"x"}\n["b", "y"]\n', encoding="utf-8"))),
         "chunks.jsonl, row 2: expected one JSON object per line"),
    Case("JSONL id that is a number", lambda s: chapter(s, lambda d: to_jsonl(d, "chunks", [{"chunk_id": 5, "text": "t"}])),
         "chunks.jsonl, row 1, column chunk_id: expected a string, found a number"),
    Case("JSONL text that is an object", lambda s: chapter(s, lambda d: to_jsonl(d, "chunks", [
         {"chunk_id": "a", "text": "t"}, {"chunk_id": "b", "text": {"en": "t"}}])),
         "chunks.jsonl, row 2, column text: expected a string, found an object"),
    Case("JSONL quote that is true", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": True}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 1, column quote: expected a string, found true or false"),
    Case("JSONL cited that is a string", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": ["handbook-1"]},
         {"claim_id": "c2", "text": "t", "quote": "q", "cited": "handbook-1"}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 2, column cited: expected a list of chunk ids, found a string"),
    Case("JSONL cited list holding an empty id", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": ["handbook-1"]},
         {"claim_id": "c2", "text": "t", "quote": "q", "cited": ["handbook-1", ""]}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 2, column cited: cited ids must be non-empty, without tabs or newlines"),
    Case("JSONL cited list holding an id with a tab", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": ["handbook-1"]},
         {"claim_id": "c2", "text": "t", "quote": "q", "cited": ["handbook-1", "hand\tbook"]}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 2, column cited: cited ids must be non-empty, without tabs or newlines"),
    Case("JSONL cited list holding a null", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": ["handbook-1"]},
         {"claim_id": "c2", "text": "t", "quote": "q", "cited": []},
         {"claim_id": "c3", "text": "t", "quote": "q", "cited": ["handbook-1", None]}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 3, column cited: expected a list of chunk ids, found a list holding a value that is not a string"),
    Case("JSONL cited list holding an id with a carriage return", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": ["handbook-1"]},
         {"claim_id": "c2", "text": "t", "quote": "q", "cited": ["handbook-1", "handbook\r"]}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 2, column cited: cited ids must be non-empty, without tabs or newlines"),
    Case("JSONL cited that lists numbers", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": [1, 2]}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 1, column cited: expected a list of chunk ids, found a list holding a value that is not a string"),
    Case("JSONL claim without a quote key", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": ""}, {"claim_id": "c2", "text": "t"}]), (d / "citations.csv").unlink())),
         "claims.jsonl, row 2, column quote: missing key 'quote'"),
    Case("JSONL claim whose quote is null", lambda s: chapter(s, lambda d: (to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": ""}, {"claim_id": "c2", "text": "t", "quote": None}]),
         (d / "citations.csv").unlink())),
         "claims.jsonl, row 2, column quote: 'quote' is null (an empty value is written \"\")"),
    Case("JSONL claims with a cited list and a citations file", lambda s: chapter(s, lambda d: to_jsonl(d, "claims", [
         {"claim_id": "c1", "text": "t", "quote": "q", "cited": ["handbook-1"]}])),
         "claims.jsonl, column cited: claims carry a cited list and citations.csv exists; keep one"),
    # --- Parquet ---
    Case("Parquet id column of integers", lambda s: chapter(s, lambda d: to_parquet(d, "chunks",
         "SELECT 7 AS chunk_id, 'text' AS text")), "chunks.parquet, column chunk_id: expected a string, found a column of type INTEGER"),
    Case("Parquet cited of integers", lambda s: chapter(s, lambda d: (to_parquet(d, "claims",
         "SELECT 'c1' AS claim_id, 't' AS text, 'q' AS quote, [1, 2] AS cited"), (d / "citations.csv").unlink())),
         "claims.parquet, column cited: expected a list of chunk ids, found a column of type INTEGER[]"),
    Case("Parquet cited list holding a null", lambda s: chapter(s, lambda d: (to_parquet(d, "claims",
         "SELECT * FROM (VALUES ('c1', 't', 'q', ['handbook-1']), ('c2', 't', 'q', []), "
         "('c3', 't', 'q', ['handbook-1', NULL])) AS v(claim_id, text, quote, cited)"), (d / "citations.csv").unlink())),
         "claims.parquet, row 3, column cited: cited ids must be non-empty, without tabs or newlines"),
    Case("Parquet unknown column", lambda s: chapter(s, lambda d: to_parquet(d, "chunks",
         "SELECT 'k' AS chunk_id, 't' AS text, 'x' AS chunk_txt")), "chunks.parquet, column chunk_txt: unknown column"),
    Case("not a Parquet file", lambda s: chapter(s, lambda d: ((d / "chunks.csv").unlink(),
         (d / "chunks.parquet").write_bytes(b"PAR1 not really"))), "chunks.parquet: cannot read Parquet"),
    # --- retrieve-then-read inputs and settings ---
    Case("unknown run.toml key", lambda s: handbook(s, lambda d: (d / "run.toml").write_text('[retrieval]\ntopk = 3\n',
         encoding="utf-8")), "run.toml: unknown key 'topk' in [retrieval]"),
    Case("unknown run.toml table", lambda s: handbook(s, lambda d: (d / "run.toml").write_text('[reading]\nx = 1\n',
         encoding="utf-8")), "run.toml: unknown table [reading]"),
    Case("bad retriever", lambda s: handbook(s, lambda d: (d / "run.toml").write_text('[retrieval]\nretriever = "bm25"\n',
         encoding="utf-8")), "run.toml, column retriever: unknown retriever 'bm25' (use overlap or tfidf)"),
    Case("bad top_k", lambda s: handbook(s, lambda d: (d / "run.toml").write_text('[retrieval]\ntop_k = 0\n',
         encoding="utf-8")), "run.toml, column top_k: top_k must be a whole number from 1 to 100,000, not 0"),
    Case("top_k beyond INTEGER, no warehouse", lambda s: handbook(s, lambda d: (d / "run.toml").write_text(
         '[retrieval]\ntop_k = 2147483648\n', encoding="utf-8")),
         "run.toml, column top_k: top_k must be a whole number from 1 to 100,000, not 2147483648", fresh=True),
    Case("--top-k beyond INTEGER", lambda s: handbook(s, lambda d: None, "--top-k", "2147483648"),
         "top_k: top_k must be a whole number from 1 to 100,000, not 2147483648"),
    Case("invalid TOML", lambda s: handbook(s, lambda d: (d / "run.toml").write_text('[retrieval\n', encoding="utf-8")),
         "run.toml: not valid TOML"),
    Case("bad --retriever", lambda s: handbook(s, lambda d: None, "--retriever", "dense"),
         "retriever: unknown retriever 'dense' (use overlap or tfidf)"),
    Case("unknown gold chunk", lambda s: handbook(s, lambda d: edit(d / "questions.csv", ",leave-2,", ",leave-22,")),
         "questions.csv, row 2, column gold_chunk_id: unknown chunk 'leave-22'"),
    Case("unknown expected with aliases", lambda s: handbook(s, lambda d: edit(d / "questions.csv", ",abstain,",
         ",decline,")), "questions.csv, row 10, column expected: unknown expected value 'decline'"),
    Case("response to unknown question", lambda s: handbook(s, lambda d: edit(d / "responses.csv", "q6,", "q66,")),
         "responses.csv, row 6 (line 11), column question_id: unknown question 'q66'"),
    Case("two responses to one question", lambda s: handbook(s, lambda d: edit(d / "responses.csv", "q6,", "q1,")),
         "responses.csv, row 6 (line 11), column question_id: duplicate id 'q1' (first at row 1)"),
    Case("rank not a number", lambda s: handbook(s, retrievals([["q1", "leave-1", "first", "1"]])),
         "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not 'first'"),
    Case("rank zero", lambda s: handbook(s, retrievals([["q1", "leave-1", "0", "1"]])),
         "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not '0'"),
    Case("rank not whole", lambda s: handbook(s, retrievals([["q1", "leave-1", "1.5", "1"]])),
         "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not '1.5'"),
    Case("rank beyond INTEGER", lambda s: handbook(s, retrievals([["q1", "leave-1", "3000000000", "1"]])),
         "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not '3000000000'"),
    Case("score not a number", lambda s: handbook(s, retrievals([["q1", "leave-1", "1", "high"]])),
         "retrievals.csv, row 1, column score: score must be a finite plain decimal number (0.25, 1e-3), not 'high'"),
    Case("score NaN", lambda s: handbook(s, retrievals([["q1", "leave-1", "1", "NaN"]])),
         "retrievals.csv, row 1, column score: score must be a finite plain decimal number (0.25, 1e-3), not 'NaN'"),
    Case("score overflows to infinity", lambda s: handbook(s, retrievals([["q1", "leave-1", "1", "1e400"]])),
         "retrievals.csv, row 1, column score: score must be a finite plain decimal number (0.25, 1e-3), not '1e400'"),
    Case("rank twice for a question", lambda s: handbook(s, retrievals([["q1", "leave-1", "1", "2"],
         ["q1", "leave-2", "1", "1"]])), "retrievals.csv, row 2, column rank: question 'q1' has this rank twice"),
    Case("retrieval of unknown question", lambda s: handbook(s, retrievals([["zz", "leave-1", "1", "2"]])),
         "retrievals.csv, row 1, column question_id: unknown question 'zz'"),
    Case("JSONL rank that is a list", lambda s: handbook(s, lambda d: to_jsonl(d, "retrievals", [
         {"question_id": "q1", "chunk_id": "leave-1", "rank": [1], "score": 1}])),
         "retrievals.jsonl, row 1, column rank: expected a whole number, found a list"),
    Case("refused not a boolean", lambda s: handbook(s, lambda d: write_table(d / "responses.csv",
         ["question_id", "output", "refused"], [["q1", "Answer: x\nSources: leave-1", "maybe"]])),
         "responses.csv, row 1, column refused: refused must be true or false, not 'maybe'"),
    # --- options ---
    Case("threshold beyond range", lambda s: ["load", str(CHAPTER3), "--run", "x", "--thresholds", "1,2,3000000000"],
         "--thresholds: each threshold must be a whole number from 0 to 1,000,000"),
    Case("negative threshold", lambda s: ["load", str(CHAPTER3), "--run", "x", "--thresholds", "-1"], "--thresholds"),
    Case("threshold not whole", lambda s: ["load", str(CHAPTER3), "--run", "x", "--thresholds", "1,2.5"],
         "--thresholds takes whole numbers"),
    Case("run named latest", lambda s: ["load", str(CHAPTER3), "--run", "latest"], "'latest' is reserved"),
    Case("check limit 1_0", lambda s: ["check", "--min", "supported_share=1_0"], "supported_share=1_0"),
    Case("check metric typo", lambda s: ["check", "--min", "supported_shar=1"],
         "unknown metric 'supported_shar' (did you mean 'supported_share'?)"),
    Case("sql that deletes", lambda s: ["sql", "DELETE FROM runs"], "not DELETE"),
    Case("sql that copies out", lambda s: ["sql", f"COPY runs TO '{s / 'x.csv'}'"], "evalwh sql runs read-only queries"),
    Case("sql that attaches", lambda s: ["sql", f"ATTACH '{s / 'y.duckdb'}' AS y"], "evalwh sql runs read-only queries"),
    Case("empty sql", lambda s: ["sql", ""], "no SQL statement given"),
    Case("sql of only a semicolon", lambda s: ["sql", ";"], "no SQL statement given"),
    Case("-o under a file", unwritable_output, "afile/cases.tsv: cannot write there, "),
    # --- production logs ---
    Case("log file missing", lambda s: ["logs", "import", str(s / "nope.jsonl")], "nope.jsonl: no such file"),
    Case("log line not JSON", lambda s: log_file(s, "a.jsonl", [request(), "{oops"]),
         "a.jsonl: line 2: not a JSON object"),
    Case("log bad record after blank lines", lambda s: log_file(s, "a.jsonl", [
         request(), "", "  \t", request(request_id="r2", refused="maybe")]),
         "a.jsonl: line 4: refused is not a boolean"),
    Case("log bad record after a blank last line", lambda s: log_file(s, "a.jsonl", [
         request(refused="maybe"), request(request_id="r2"), b"  "]),
         "a.jsonl: line 1: refused is not a boolean"),
    Case("log time infinity", lambda s: log_file(s, "a.jsonl", [request(ts="infinity")]),
         "a.jsonl: line 1: timestamp is not ISO 8601"),
    Case("log time epoch", lambda s: log_file(s, "a.jsonl", [request(), request(request_id="r2", ts="epoch")]),
         "a.jsonl: line 2: timestamp is not ISO 8601"),
    Case("log refused maybe", lambda s: log_file(s, "a.jsonl", [request(refused="maybe")]),
         "a.jsonl: line 1: refused is not a boolean"),
    Case("log request id that is a number", lambda s: log_file(s, "a.jsonl", [request(request_id=7)]),
         "a.jsonl: line 1: request_id must be a string"),
    Case("log retrieved that is a string", lambda s: log_file(s, "a.jsonl", [request(retrieved="handbook-1")]),
         "a.jsonl: line 1: retrieved must be a list of objects"),
    Case("log retrieved listing strings", lambda s: log_file(s, "a.jsonl", [request(retrieved=["handbook-1"])]),
         "a.jsonl: line 1: retrieved must be a list of objects"),
    Case("log cited that is an object", lambda s: log_file(s, "a.jsonl", [request(cited={"chunk_id": "x"})]),
         "a.jsonl: line 1: cited must be a list of objects"),
    Case("log score that is a word", lambda s: log_file(s, "a.jsonl", [request(retrieved=[
         {"chunk_id": "handbook-1", "score": "high"}])]), "a.jsonl: line 1: retrieved score must be a finite number"),
    Case("log answer that is a number", lambda s: log_file(s, "a.jsonl", [request(answer=14)]),
         "a.jsonl: line 1: answer must be a string"),
    Case("log request id twice in one file", lambda s: log_file(s, "a.jsonl", [request(), request()]),
         "a.jsonl: line 2: request id already used earlier in this import"),
    Case("log request id in two files on the same line, no warehouse",
         lambda s: [*log_file(s, "a.jsonl", [request()]), str(log_file(s, "b.jsonl", [request()])[2])],
         "b.jsonl: line 1: request id already used earlier in this import", fresh=True),
    Case("OTLP spans that are not a list", lambda s: log_file(s, "t.json", [json.dumps({"resourceSpans": [
         {"scopeSpans": [{"spans": "not a list"}]}]})], "--log-format", "otlp"),
         "t.json: line 1: spans must be a list"),
    Case("OTLP documents string that is not a list", lambda s: log_file(s, "t.json", [json.dumps({"resourceSpans": [
         {"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc6ff", "attributes": [
             {"key": "gen_ai.retrieval.documents", "value": {"stringValue": '{"id": "k1"}'}}]}]}]}]})], "--log-format", "otlp"),
         "t.json: line 1: gen_ai.retrieval.documents must be a JSON list"),
    Case("OTLP start time that is not a number", lambda s: log_file(s, "t.json", [json.dumps({"resourceSpans": [
         {"scopeSpans": [{"spans": [{"traceId": "5b8efff798038103d269b633813fc6ff", "startTimeUnixNano": "soon",
                                     "attributes": [{"key": "input.value", "value": {"stringValue": "When?"}}]}]}]}]})],
         "--log-format", "otlp"),
         "t.json: line 1: does not fit the otlp format"),
    Case("Anthropic messages that are a string", lambda s: log_file(s, "a.jsonl", [json.dumps(
         {"request": {"messages": "hello"}, "response": {"id": "m1", "content": []}})]),
         "a.jsonl: line 1: request.messages must be a list"),
    Case("Anthropic message content that is a number", lambda s: log_file(s, "a.jsonl", [json.dumps(
         {"request": {"messages": [{"role": "user", "content": 7}]}, "response": {"id": "m1", "content": []}})]),
         "a.jsonl: line 1: a message content must be a string or a list"),
    Case("Anthropic citations that are an object", lambda s: log_file(s, "a.jsonl", [json.dumps(
         {"request": {"messages": []}, "response": {"id": "m1", "content": [
             {"type": "text", "text": "x", "citations": {"document_index": 0}}]}})]),
         "a.jsonl: line 1: a response block's citations must be a list"),
    Case("RAGAS context id that is an object", lambda s: log_file(s, "r.jsonl", [json.dumps(
         {"user_input": "Q?", "retrieved_contexts": ["a"], "retrieved_context_ids": [{"id": "k1"}]})]),
         "r.jsonl: line 1: retrieved_context_ids and reference_context_ids must list strings or whole numbers"),
    Case("RAGAS context that is a number", lambda s: log_file(s, "r.jsonl", [json.dumps(
         {"user_input": "Q?", "retrieved_contexts": ["a"]}), json.dumps({"user_input": "Q2?", "retrieved_contexts": [7]})]),
         "r.jsonl: line 2: retrieved_contexts, contexts and reference_contexts must list strings"),
    Case("RAGAS answer that is a list", lambda s: log_file(s, "r.jsonl", [json.dumps(
         {"user_input": "Q?", "response": ["Yes."]})]),
         "r.jsonl: line 1: user_input, question, response, answer, reference and ground_truth must be strings"),
    Case("a zstd-compressed log", lambda s: log_file(s, "a.jsonl.zst", [request()]),
         "a.jsonl.zst: a zstd-compressed log is not read; decompress it (zstd -d) or gzip it"),
    Case("UTF-16 log", lambda s: log_file(s, "a.jsonl", [request().encode("utf-16")]), "a.jsonl: the file is UTF-16"),
    Case("log format not recognised", lambda s: log_file(s, "a.jsonl", ['{"hello": 1}']),
         "a.jsonl: cannot tell the log format from its first record"),
    # --- numbers in other scripts, damaged compression, JSON, names, places ---
    Case("thresholds with an underscore", lambda s: chapter(s, lambda d: None, "--thresholds", "1_0"),
         "--thresholds takes whole numbers separated by commas, not '1_0'"),
    Case("thresholds in Arabic-Indic digits", lambda s: chapter(s, lambda d: None, "--thresholds", "\u0661,\u0662"),
         "--thresholds takes whole numbers separated by commas, not '\u0661,\u0662'"),
    Case("thresholds in full-width digits", lambda s: chapter(s, lambda d: None, "--thresholds", "\uff11,\uff12"),
         "--thresholds takes whole numbers separated by commas, not '\uff11,\uff12'"),
    Case("retrieval score with an underscore", lambda s: handbook(s, retrievals([["q1", "leave-1", "1", "1_0"]])),
         "retrievals.csv, row 1, column score: score must be a finite plain decimal number (0.25, 1e-3), not '1_0'"),
    Case("retrieval score in full-width digits", lambda s: handbook(s, retrievals([["q1", "leave-1", "1", "\uff10.5"]])),
         "retrievals.csv, row 1, column score: score must be a finite plain decimal number"),
    Case("gzip input with a bad CRC", lambda s: chapter(s, gzipped(flip_crc)),
         "claims.csv.gz: not a valid gzip file (CRC check failed"),
    Case("gzip input cut short", lambda s: chapter(s, gzipped(lambda b: b[:-12])),
         "claims.csv.gz: not a valid gzip file (Compressed file ended before the end-of-stream marker was reached)"),
    Case("gzip input with damaged data", lambda s: chapter(s, gzipped(lambda b: b[:20] + b"\xff" * 10 + b[30:])),
         "claims.csv.gz: not a valid gzip file (Error -3 while decompressing data"),
    Case("zstd input cut short", lambda s: chapter(s, zstd_cut_short),
         "claims.csv.zst: not a valid zstd file: the data ends inside a frame"),
    Case("an in-memory warehouse", lambda s: ["--db", ":memory:", *chapter(s)],
         ":memory:: an in-memory database keeps nothing once evalwh ends; the warehouse is a file (--db names it)"),
    Case("JSONL record with a trailing comma", lambda s: chapter(s, lambda d: claims_jsonl_text(
         d, GOOD_CLAIM[:-1] + ',}\n')),  # the column of the closing brace, where a key was expected
         f"claims.jsonl: line 1: malformed JSON at column {len(GOOD_CLAIM) + 1}: Expecting property name"),
    Case("JSONL bad second line", lambda s: chapter(s, lambda d: claims_jsonl_text(
         d, GOOD_CLAIM + '\n{"claim_id": "c2", "text": \n')), "claims.jsonl: line 2: malformed JSON at column 28"),
    Case("header that is not UTF-8", lambda s: chapter(s, lambda d: (d / "claims.csv").write_bytes(
         (d / "claims.csv").read_bytes().replace(b"quote", b"quot\xc4", 1))),
         "claims.csv: line 1 (the header), byte 19: text is not valid UTF-8; the file looks like Windows-1252 or "
         "Latin-1, where byte 0xC4 is '\u00c4'"),
    Case("run name too long for a folder", lambda s: chapter(s, lambda d: None, "--run", "r" * 300),
         "run name of 300 characters is too long: export writes it into a directory name"),
    Case("Parquet with rowid and 'rowid (input)'", lambda s: chapter(s, lambda d: to_parquet(
         d, "claims", "SELECT 'c1' AS claim_id, 't' AS text, 'q' AS quote, 1 AS rowid, 2 AS \"rowid (input)\"")),
         "claims.parquet, column rowid: unknown column; pass --allow-extra to ignore it"),
    Case("Anthropic request id that is a number", lambda s: log_file(s, "a.jsonl", [json.dumps(
         {"request_id": 7, "request": {"messages": []}, "response": {"id": "m1", "content": []}})]),
         "a.jsonl: line 1: request_id must be a string"),
    Case("Anthropic response id that is a number", lambda s: log_file(s, "a.jsonl", [json.dumps(
         {"request": {"messages": []}, "response": {"id": 5, "content": []}})]),
         "a.jsonl: line 1: response.id must be a string"),
    Case("log time 99 hours from UTC", lambda s: log_file(s, "a.jsonl", [request(ts="2026-11-30T09:15:00+99:00")]),
         "a.jsonl: line 1: timestamp's UTC offset is not a time zone's (over 14 hours)"),
    Case("log time with 75 offset minutes", lambda s: log_file(s, "a.jsonl", [request(ts="2026-11-30T09:15:00+01:75")]),
         "a.jsonl: line 1: timestamp's UTC offset is not a time zone's"),
    Case("empty log file", lambda s: log_file(s, "e.jsonl", []),
         "e.jsonl: the file holds no log records (it is empty or blank)"),
    Case("blank log file", lambda s: log_file(s, "e.jsonl", ["  ", ""]),
         "e.jsonl: the file holds no log records (it is empty or blank)"),
    Case("log record with a trailing comma", lambda s: log_file(s, "a.jsonl", [
         request(), request(request_id="r2")[:-1] + ", }"]), "a.jsonl: line 2: malformed JSON at column"),
]


def sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse holding the chapter-3 seed, built once and copied for each case."""
    path = tmp_path_factory.mktemp("seeded") / "wh.duckdb"
    result = CliRunner().invoke(app, ["--db", str(path), "seed"])
    assert result.exit_code == 0, result.stderr
    return path


def test_the_table_holds_sixty_kinds() -> None:
    names = [case.name for case in CASES]
    assert len(set(names)) == len(names) >= 60


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_exits_2_naming_the_place_and_changes_nothing(case: Case, seeded: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a --db such as :memory: names a file here: none may appear
    db = tmp_path / "wh.duckdb"
    if not case.fresh:
        shutil.copy(seeded, db)
    scratch = tmp_path / "inputs"
    scratch.mkdir()
    args = case.make(scratch)
    before = sha256(db)
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stderr
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("evalwh: error: ")
    assert case.message in lines[0]
    assert len(lines[0]) < 700, "data is echoed at most 200 characters at a time"
    assert sha256(db) == before
    assert not Path(str(db) + ".wal").exists()
    assert {p.name for p in tmp_path.iterdir()} <= {"inputs", "wh.duckdb"}
