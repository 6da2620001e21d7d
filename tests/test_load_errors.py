"""Loading edge cases that are not simply rejected (tests/test_bad_input.py holds every rejection):
no warehouse after a failed first load, DANGLING instead of an error, a retrievals file, file order."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CHAPTER3, DUCKDB_1, rows, write_table


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run2"
    shutil.copytree(CHAPTER3, folder)
    return folder


def edit_csv(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


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


def test_allow_extra_ignores_unknown_files_and_columns(cli, db: Path, run_dir: Path) -> None:
    (run_dir / "claims.json").write_text("[]", encoding="utf-8")
    text = (run_dir / "chunks.csv").read_text(encoding="utf-8").splitlines()
    (run_dir / "chunks.csv").write_text("\n".join([text[0] + ",notes"] + [line + ",x" for line in text[1:]]) + "\n",
                                        encoding="utf-8")
    refused = cli("load", str(run_dir))
    assert refused.exit_code == 2
    assert not db.exists()
    loaded = cli("load", "--allow-extra", str(run_dir))
    assert loaded.exit_code == 0, loaded.stderr
    # the same statuses as the seed itself: the extra column and file changed nothing
    assert cli("seed", "--run", "seed").exit_code == 0
    assert rows(db, "SELECT claim_id, status FROM claim_status WHERE run_id = 'run2' ORDER BY claim_id") == \
        rows(db, "SELECT claim_id, status FROM claim_status WHERE run_id = 'seed' ORDER BY claim_id")


def test_files_that_do_not_look_like_input_are_left_alone(cli, db: Path, run_dir: Path) -> None:
    (run_dir / "README.md").write_text("# notes\n", encoding="utf-8")
    (run_dir / ".DS_Store").write_bytes(b"\x00")
    assert cli("load", str(run_dir)).exit_code == 0


def test_a_byte_order_mark_is_accepted_in_every_text_format(cli, db: Path, run_dir: Path) -> None:
    claims = run_dir / "claims.csv"
    claims.write_bytes(b"\xef\xbb\xbf" + claims.read_bytes())
    (run_dir / "chunks.csv").unlink()
    # DuckDB 1.4's JSON reader refuses a byte order mark (the load then names the file, line 1, column 1)
    bom = b"" if DUCKDB_1 else b"\xef\xbb\xbf"
    (run_dir / "chunks.jsonl").write_bytes(bom + b'{"chunk_id": "handbook-1", "text": "Loan laptops."}\n')
    (run_dir / "stopwords.txt").write_bytes(b"\xef\xbb\xbfthe\na\n")
    result = cli("load", str(run_dir))
    assert result.exit_code == 0, result.stderr
    assert rows(db, "SELECT claim_id FROM claims ORDER BY ordinal LIMIT 1") == [("c1",)]
    assert rows(db, "SELECT chunk_id FROM chunks") == [("handbook-1",)]


def test_a_csv_line_longer_than_duckdbs_default_loads(cli, db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "long"
    long_text = "word " * 700_000  # 3.5 MB on one line, past DuckDB's 2 MB default
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["k1", long_text], ["k2", "short"]])
    write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [["c1", "Word.", "word word"]])
    write_table(folder / "citations.csv", ["claim_id", "chunk_id"], [["c1", "k1"]])
    result = cli("load", str(folder))
    assert result.exit_code == 0, result.stderr
    assert rows(db, "SELECT chunk_id, length(text) FROM chunks ORDER BY chunk_id") == [("k1", len(long_text)),
                                                                                     ("k2", 5)]
    assert rows(db, "SELECT status FROM claim_status") == [("SUPPORTED",)]


def test_an_unreadable_file_is_one_line_and_exit_2(cli, db: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # root reads any file, so the permission error is raised where evalwh first opens the file
    import evalwh.loader.sources

    def refuse(path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(evalwh.loader.sources, "check_byte_order_mark", refuse)
    result = cli("load", str(run_dir))
    assert result.exit_code == 2
    assert result.stderr == f"evalwh: error: {run_dir / 'chunks.csv'}: permission denied\n"
    assert not db.exists()


def test_gzip_and_zstd_inputs_load_like_the_plain_files(cli, db: Path, tmp_path: Path) -> None:
    import gzip

    import duckdb

    folder = tmp_path / "packed"
    shutil.copytree(CHAPTER3, folder)
    claims = folder / "claims.csv"
    (folder / "claims.csv.gz").write_bytes(gzip.compress(claims.read_bytes()))
    claims.unlink()
    con = duckdb.connect()
    con.execute(f"COPY (FROM read_csv('{folder / 'chunks.csv'}', all_varchar=true)) TO '{folder / 'chunks.csv.zst'}' "
                "(HEADER, COMPRESSION zstd)")
    con.close()
    (folder / "chunks.csv").unlink()
    assert sorted(p.name for p in folder.iterdir()) == ["chunks.csv.zst", "citations.csv", "claims.csv.gz", "questions.csv"]
    result = cli("load", str(folder))
    assert result.exit_code == 0, result.stderr
    assert cli("seed").exit_code == 0
    assert rows(db, "SELECT claim_id, status FROM claim_status WHERE run_id = 'packed' ORDER BY claim_id") == \
        rows(db, "SELECT claim_id, status FROM claim_status WHERE run_id = 'chapter3' ORDER BY claim_id")
    # a bad row inside a gzip file is still named by row and column
    text = gzip.decompress((folder / "claims.csv.gz").read_bytes()).decode("utf-8").replace("c3,", ",", 1)
    (folder / "claims.csv.gz").write_bytes(gzip.compress(text.encode("utf-8")))
    bad = cli("load", str(folder), "--run", "again")
    assert bad.exit_code == 2
    assert "claims.csv.gz, row 3, column claim_id: empty id" in bad.stderr


def test_a_column_named_like_a_renamed_repeat_is_its_own_column(cli, db: Path, tmp_path: Path) -> None:
    """A file whose columns really are `text` and `text_1` (DuckDB's name for a repeated `text`) is not a
    repeated header: with --allow-extra it loads, and `text` is the text."""
    folder = tmp_path / "run"
    write_table(folder / "chunks.csv", ["chunk_id", "text", "text_1"], [["k", "Alpha 1 text.", "Beta 2."]])
    write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [["c", "Alpha 1.", "alpha 1"]])
    write_table(folder / "citations.csv", ["claim_id", "chunk_id"], [["c", "k"]])
    loaded = cli("load", "--allow-extra", str(folder))
    assert loaded.exit_code == 0, loaded.stderr
    assert rows(db, "SELECT text FROM chunks") == [("Alpha 1 text.",)]
    assert rows(db, "SELECT status FROM claim_status") == [("SUPPORTED",)]
