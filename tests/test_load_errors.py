"""Bad input: one stderr line naming file, row and column, exit code 2, warehouse unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CHAPTER3, snapshot, write_table


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run2"
    shutil.copytree(CHAPTER3, folder)
    return folder


@pytest.fixture
def loaded(cli, db: Path) -> dict:
    """A warehouse holding the chapter-3 seed, and its contents before the bad load."""
    assert cli("seed").exit_code == 0
    return snapshot(db)


def edit_csv(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def assert_rejected(result, db: Path, before: dict, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("evalwh: error: ")
    assert message in lines[0]
    assert snapshot(db) == before


CASES = [
    ("missing chunks file", lambda d: (d / "chunks.csv").unlink(), "chunks.csv: missing file"),
    ("missing column", lambda d: edit_csv(d / "chunks.csv", "chunk_id,doc_id,text", "chunk_id,doc_id,body"),
     "chunks.csv, column text: missing column 'text'"),
    ("empty id", lambda d: edit_csv(d / "claims.csv", "c3,", ","), "claims.csv, row 3, column claim_id: empty id"),
    ("duplicate id", lambda d: edit_csv(d / "questions.csv", "q2,", "q1,"),
     "questions.csv, row 2, column question_id: duplicate id 'q1' (first at row 1)"),
    ("duplicate chunk id", lambda d: edit_csv(d / "chunks.csv", "network-2,", "network-1,"),
     "chunks.csv, row 5, column chunk_id: duplicate id 'network-1' (first at row 4)"),
    ("citation of unknown claim", lambda d: edit_csv(d / "citations.csv", "c5,network-1", "c9,network-1"),
     "citations.csv, row 4, column claim_id: unknown claim 'c9'"),
    ("unknown expected", lambda d: edit_csv(d / "questions.csv", "refuse", "decline"),
     "questions.csv, row 7, column expected: unknown expected value 'decline'"),
    ("tab in id", lambda d: edit_csv(d / "chunks.csv", "network-3,", '"network\t3",'),
     "chunks.csv, row 6, column chunk_id: id contains a tab or newline"),
    ("newline in id", lambda d: edit_csv(d / "questions.csv", "u1,", '"u\n1",'),
     "questions.csv, row 7, column question_id: id contains a tab or newline"),
    ("no claims and no questions", lambda d: ((d / "claims.csv").unlink(), (d / "citations.csv").unlink(),
                                              (d / "questions.csv").unlink()),
     "missing file: a run needs claims or questions"),
    ("citations without claims", lambda d: (d / "claims.csv").unlink(),
     "citations.csv: citations need a claims file beside them"),
    ("two formats of one file", lambda d: write_table(d / "chunks.jsonl", ["chunk_id", "text"], [["a", "b"]]),
     "both chunks.csv and chunks.jsonl are present"),
    ("ragged csv row", lambda d: edit_csv(d / "citations.csv", "c2,handbook-1", "c2,handbook-1,extra"),
     "citations.csv: line 3: cannot parse: Expected Number of Columns: 2 Found: 3"),
]


@pytest.mark.parametrize("name,break_it,message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_rejected_and_nothing_changes(cli, db: Path, loaded: dict, run_dir: Path, name, break_it, message) -> None:
    break_it(run_dir)
    assert_rejected(cli("load", str(run_dir)), db, loaded, message)


def test_invalid_utf8_names_row_and_column(cli, db: Path, loaded: dict, run_dir: Path) -> None:
    path = run_dir / "claims.csv"
    path.write_bytes(path.read_bytes().replace(b"Lost laptops", b"Lost \xfflaptops"))
    assert_rejected(cli("load", str(run_dir)), db, loaded, "claims.csv, row 3, column text: text is not valid UTF-8")


def test_invalid_utf8_in_jsonl_names_the_line(cli, db: Path, loaded: dict, run_dir: Path) -> None:
    (run_dir / "questions.csv").unlink()
    path = run_dir / "questions.jsonl"
    path.write_bytes(b'{"question_id":"q1","question":"ok","expected":"answer","gold":""}\n'
                     b'{"question_id":"q2","question":"bad \xc3","expected":"answer","gold":""}\n')
    assert_rejected(cli("load", str(run_dir)), db, loaded, "questions.jsonl: line 2, byte 37: text is not valid UTF-8")


def test_malformed_jsonl_names_the_line(cli, db: Path, loaded: dict, run_dir: Path) -> None:
    (run_dir / "chunks.csv").unlink()
    (run_dir / "chunks.jsonl").write_text('{"chunk_id":"a","text":"x"}\n{"chunk_id":"b",\n', encoding="utf-8")
    assert_rejected(cli("load", str(run_dir)), db, loaded, "chunks.jsonl: line 3: malformed JSON")


def test_jsonl_cited_must_be_a_list(cli, db: Path, loaded: dict, run_dir: Path) -> None:
    (run_dir / "claims.csv").unlink()
    (run_dir / "citations.csv").unlink()
    write_table(run_dir / "claims.jsonl", ["claim_id", "text", "quote", "cited"],
                [["c1", "t", "q", ["handbook-1"]], ["c2", "t", "q", "handbook-1"]])
    assert_rejected(cli("load", str(run_dir)), db, loaded, "claims.jsonl, row 2, column cited: expected a list of chunk ids")


def test_existing_run_needs_replace(cli, db: Path, loaded: dict) -> None:
    result = cli("seed")
    assert_rejected(result, db, loaded, "run 'chapter3' already exists; pass --replace")


def test_bad_load_does_not_create_a_warehouse(cli, db: Path, run_dir: Path) -> None:
    edit_csv(run_dir / "claims.csv", "c3,", ",")
    result = cli("load", str(run_dir))
    assert result.exit_code == 2
    assert not db.exists()


def test_unknown_chunk_is_not_an_error(cli, db: Path, run_dir: Path) -> None:
    edit_csv(run_dir / "citations.csv", "c1,handbook-1", "c1,no such/chunk")
    result = cli("load", str(run_dir))
    assert result.exit_code == 0, result.stderr
    status = cli("status", "--format", "csv")
    assert "c1,DANGLING" in status.stdout


@pytest.fixture
def handbook_dir(tmp_path: Path) -> Path:
    from tests.conftest import REPO

    folder = tmp_path / "hb"
    shutil.copytree(REPO / "seeds" / "handbook", folder)
    return folder


def add_retrievals(folder: Path, rows: list[list[str]]) -> None:
    write_table(folder / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"], rows)


RTR_CASES = [
    ("unknown run.toml key", lambda d: (d / "run.toml").write_text('[retrieval]\ntopk = 3\n', encoding="utf-8"),
     "run.toml: unknown key 'topk' in [retrieval]"),
    ("unknown run.toml table", lambda d: (d / "run.toml").write_text('[reading]\nx = 1\n', encoding="utf-8"),
     "run.toml: unknown table [reading]"),
    ("bad retriever", lambda d: (d / "run.toml").write_text('[retrieval]\nretriever = "bm25"\n', encoding="utf-8"),
     "run.toml, column retriever: unknown retriever 'bm25' (use overlap or tfidf)"),
    ("bad top_k", lambda d: (d / "run.toml").write_text('[retrieval]\ntop_k = 0\n', encoding="utf-8"),
     "run.toml, column top_k: top_k must be a whole number from 1 to 100,000, not 0"),
    ("invalid toml", lambda d: (d / "run.toml").write_text('[retrieval\n', encoding="utf-8"), "run.toml: not valid TOML"),
    ("unknown gold chunk", lambda d: edit_csv(d / "questions.csv", ",leave-2,", ",leave-22,"),
     "questions.csv, row 2, column gold_chunk_id: unknown chunk 'leave-22'"),
    ("unknown expected with aliases", lambda d: edit_csv(d / "questions.csv", ",abstain,", ",decline,"),
     "questions.csv, row 10, column expected: unknown expected value 'decline' (use answer, refuse or flag_premise)"),
    ("response to unknown question", lambda d: edit_csv(d / "responses.csv", "q6,", "q66,"),
     "responses.csv, row 6 (line 11), column question_id: unknown question 'q66'"),
    ("two responses to one question", lambda d: edit_csv(d / "responses.csv", "q6,", "q1,"),
     "responses.csv, row 6 (line 11), column question_id: duplicate id 'q1' (first at row 1)"),
    ("retrieval rank not a number", lambda d: add_retrievals(d, [["q1", "leave-1", "first", "1"]]),
     "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not 'first'"),
    ("retrieval rank zero", lambda d: add_retrievals(d, [["q1", "leave-1", "0", "1"]]),
     "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not '0'"),
    ("retrieval score not a number", lambda d: add_retrievals(d, [["q1", "leave-1", "1", "high"]]),
     "retrievals.csv, row 1, column score: score must be a finite number, not 'high'"),
    ("top_k beyond INTEGER", lambda d: (d / "run.toml").write_text('[retrieval]\ntop_k = 2147483648\n', encoding="utf-8"),
     "run.toml, column top_k: top_k must be a whole number from 1 to 100,000, not 2147483648"),
    ("retrieval rank not whole", lambda d: add_retrievals(d, [["q1", "leave-1", "1.5", "1"]]),
     "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not '1.5'"),
    ("retrieval rank beyond INTEGER", lambda d: add_retrievals(d, [["q1", "leave-1", "3000000000", "1"]]),
     "retrievals.csv, row 1, column rank: rank must be a whole number from 1, not '3000000000'"),
    ("retrieval score NaN", lambda d: add_retrievals(d, [["q1", "leave-1", "1", "NaN"]]),
     "retrievals.csv, row 1, column score: score must be a finite number, not 'NaN'"),
    ("retrieval score overflows", lambda d: add_retrievals(d, [["q1", "leave-1", "1", "1e400"]]),
     "retrievals.csv, row 1, column score: score must be a finite number, not '1e400'"),
    ("retrieval rank twice", lambda d: add_retrievals(d, [["q1", "leave-1", "1", "2"], ["q1", "leave-2", "1", "1"]]),
     "retrievals.csv, row 2, column rank: question 'q1' has this rank twice (first at row 1)"),
    ("retrieval of unknown question", lambda d: add_retrievals(d, [["zz", "leave-1", "1", "2"]]),
     "retrievals.csv, row 1, column question_id: unknown question 'zz'"),
]


@pytest.mark.parametrize("name,break_it,message", RTR_CASES, ids=[c[0] for c in RTR_CASES])
def test_bad_retrieve_read_input_is_rejected(cli, db: Path, loaded: dict, handbook_dir: Path, name, break_it, message) -> None:
    break_it(handbook_dir)
    assert_rejected(cli("load", str(handbook_dir)), db, loaded, message)


def test_bad_override_flag_is_a_usage_error(cli, db: Path, loaded: dict, handbook_dir: Path) -> None:
    assert_rejected(cli("load", str(handbook_dir), "--retriever", "dense"), db, loaded,
                    "retriever: unknown retriever 'dense' (use overlap or tfidf)")


def test_retrievals_file_replaces_the_builtin_retriever(cli, db: Path, handbook_dir: Path) -> None:
    add_retrievals(handbook_dir, [["q1", "leave-2", "1", "0.9"], ["q1", "leave-1", "2", ""]])
    result = cli("load", str(handbook_dir), "--top-k", "1")
    assert result.exit_code == 0, result.stderr
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT question_id, chunk_id, rank, score FROM retrieval_ranked ORDER BY rank").fetchall() == [
            ("q1", "leave-2", 1, 0.9), ("q1", "leave-1", 2, None)]
        assert con.execute("SELECT recall_at_k, label FROM retrieval_eval WHERE question_id = 'q1'").fetchone() == (
            0, "not retrieved (below the top 1)")
        assert con.execute("SELECT json_extract_string(params, '$.retrieval_source') FROM runs").fetchone() == ("file",)
    finally:
        con.close()


def test_a_claim_without_a_quote_key_is_an_input_error(cli, db: Path, tmp_path: Path) -> None:
    # a made-up claim whose record lacks "quote" must not become an empty quote (inside every chunk)
    folder = tmp_path / "run"
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["k1", "Loan laptops go back in 14 days."]])
    (folder / "claims.jsonl").write_text(
        '{"claim_id": "c1", "text": "Laptops go back in 14 days.", "quote": "", "cited": ["k1"]}\n'
        '{"claim_id": "c2", "text": "Laptops are free.", "cited": ["k1"]}\n', encoding="utf-8")
    result = cli("load", str(folder))
    assert result.exit_code == 2
    assert result.stderr == ("evalwh: error: claims.jsonl, row 2, column quote: missing key 'quote' "
                             "(an empty value is written \"\")\n")
    assert not db.exists()
    # the explicitly empty quote of c1 stays legal, as the chapter allows
    (folder / "claims.jsonl").write_text(
        '{"claim_id": "c1", "text": "Laptops go back in 14 days.", "quote": "", "cited": ["k1"]}\n', encoding="utf-8")
    assert cli("load", str(folder)).exit_code == 0


@pytest.mark.parametrize("thresholds", ["1,2,3000000000", "-1", "1,2.5"])
def test_thresholds_out_of_range_are_rejected_before_anything_is_written(cli, db: Path, thresholds: str) -> None:
    result = cli("load", str(CHAPTER3), "--thresholds", thresholds)
    assert result.exit_code == 2
    assert result.stderr.startswith("evalwh: error: --thresholds")
    assert len(result.stderr.splitlines()) == 1
    assert not db.exists()


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_a_rowid_column_does_not_replace_file_order(cli, db: Path, tmp_path: Path, suffix: str) -> None:
    import duckdb

    from tests.conftest import rows

    folder = tmp_path / "run"
    folder.mkdir()
    chunks = [["9", "k-first", "Alpha text."], ["1", "k-second", "Beta text."]]
    if suffix == ".parquet":
        con = duckdb.connect()
        con.execute(f"COPY (SELECT * FROM (VALUES ('9', 'k-first', 'Alpha text.'), ('1', 'k-second', 'Beta text.')) "
                    f"AS t(rowid, chunk_id, text)) TO '{folder / 'chunks.parquet'}' (FORMAT parquet)")
        con.close()
    else:
        write_table(folder / f"chunks{suffix}", ["rowid", "chunk_id", "text"], chunks)
    write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [["c", "Text.", "text"]])
    assert cli("load", "--allow-extra", str(folder)).exit_code == 0
    assert rows(db, "SELECT chunk_id, ordinal FROM chunks ORDER BY ordinal") == [("k-first", 1), ("k-second", 2)]
