"""The content-addressed chunk corpus: each distinct text normalised once, runs mapping ids to hashes,
and a warehouse of schema version 5 (chunks as a table) migrated with its rows unchanged."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import evalwh.loader.load as load_module
from evalwh.loader import load_run
from evalwh.loader.load import ranges_union
from evalwh.text.textnorm import first_sentence, norm, numbers
from evalwh.warehouse import open_warehouse
from tests.conftest import CHAPTER3, rows, warehouse_at_version, write_table

CHUNK_COLUMNS = "chunk_id, ordinal, doc_id, text, text_words, text_norm, text_terms, text_numbers, first_sentence"


def test_second_run_over_the_same_chunks_normalises_nothing(db: Path, tmp_path: Path) -> None:
    first = load_run(db, CHAPTER3, run="a")
    assert first.normalised == 9  # the chapter's nine chunks, all distinct
    second = load_run(db, CHAPTER3, run="b")
    assert second.normalised == 0
    assert rows(db, "SELECT count(*) FROM chunk_texts") == [(9,)]
    assert rows(db, "SELECT count(*) FROM chunk_refs") == [(18,)]
    view = f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE run_id = ? ORDER BY ordinal"
    assert rows(db, view, ["a"]) == rows(db, view, ["b"])
    # a run whose chunks repeat one text stores it once, under two ids
    folder = tmp_path / "dup"
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["x", "Same text."], ["y", "Same text."], ["z", "New 7."]])
    write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [["c", "Same text.", "same text"]])
    assert load_run(db, folder, run="dup").normalised == 2
    assert rows(db, "SELECT chunk_id, text_norm, text_numbers FROM chunks WHERE run_id = 'dup' ORDER BY ordinal") == [
        ("x", "same text", []), ("y", "same text", []), ("z", "new 7", ["7"])]


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_ranges_union_reads_every_row_once(parts: int) -> None:
    con = duckdb.connect()
    # ordinals with gaps, as the texts new to a warehouse have
    con.execute("CREATE TEMP TABLE src AS SELECT i AS ordinal FROM range(3, 9000, 3) AS r(i) WHERE i % 7 <> 0")
    union = ranges_union(con, "SELECT ordinal FROM temp.src WHERE {part}", "temp.src", parts)
    assert union.count("UNION ALL") == parts - 1
    got = sorted(r[0] for r in con.execute(union).fetchall())
    assert got == [i for i in range(3, 9000, 3) if i % 7 != 0]


def test_large_corpus_stores_each_new_text_once_with_its_normal_forms(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 3,000 chunks over 1,500 texts, of which the first run already stored 500: on more than one core the
    # second run's new texts are split between the threads, and each must be stored once with what the
    # Python reference gives
    splits: list[int] = []

    def split(con: duckdb.DuckDBPyConnection, select: str, table: str, parts: int) -> str:
        splits.append(parts)
        return ranges_union(con, select, table, parts)

    monkeypatch.setattr(load_module, "ranges_union", split)
    texts = [f"Text {i}: Über-{i % 13} rooms, café #{i * 7}. Second part {i}!" for i in range(1500)]
    first, second = tmp_path / "first", tmp_path / "second"
    write_table(first / "chunks.csv", ["chunk_id", "text"], [[f"a{i}", t] for i, t in enumerate(texts[:500])])
    write_table(second / "chunks.csv", ["chunk_id", "text"],
                [[f"b{i}", texts[i % 1500]] for i in range(3000)])
    for folder in (first, second):
        write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [["c", "Text 1", "text 1"]])
    assert load_run(db, first, run="first").normalised == 500
    assert load_run(db, second, run="second").normalised == 1000
    threads = duckdb.connect().execute("SELECT current_setting('threads')").fetchall()[0][0]
    assert splits == ([threads] if threads > 1 else [])  # the second run's new texts, split between the threads
    stored = rows(db, "SELECT text, text_norm, text_numbers, first_sentence FROM chunk_texts ORDER BY text")
    assert stored == sorted((t, norm(t), numbers(t), first_sentence(t)) for t in texts)


def test_unicode_run_fills_the_terms_an_ascii_run_left_out(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "u"
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [["k", "Größe-3 ÉTÉ x"]])
    write_table(folder / "questions.csv", ["question_id", "question", "expected"], [["q", "größe?", "answer"]])
    load_run(db, folder, run="ascii")
    (folder / "run.toml").write_text('[retrieval]\ntokenizer = "unicode"\n', encoding="utf-8")
    assert load_run(db, folder, run="unicode").normalised == 1  # the unicode terms of the known text
    assert rows(db, "SELECT run_id, text_terms FROM chunks ORDER BY run_id") == [
        ("ascii", ["gr", "e-3", "t", "x"]),  # [a-z0-9]+(?:-[a-z0-9]+)* on "größe-3 été x"
        ("unicode", ["größe-3", "été", "x"]),  # [\p{L}\p{N}][\p{L}\p{N}-]*
    ]


def test_version_5_warehouse_is_migrated_with_its_chunks(db: Path) -> None:
    con = warehouse_at_version(db, 5)
    con.execute("""INSERT INTO runs VALUES ('old', now(), NULL, 'x', '{"thresholds": [1], "stopwords": []}')""")
    con.execute("""INSERT INTO chunks (run_id, chunk_id, ordinal, doc_id, text, text_words, text_norm, text_terms,
                       text_numbers, first_sentence, first_sentence_tokens)
                   VALUES ('old', 'k2', 2, NULL, 'Room 12 is free. Yes.', ['room', '12', 'is', 'free', 'yes'],
                           'room 12 is free yes', ['room', '12', 'is', 'free', 'yes'], ['12'], 'Room 12 is free.',
                           ['room', '12', 'is', 'free']),
                          ('old', 'k1', 1, 'd', '', [], '', [], [], '', [])""")
    con.execute("""INSERT INTO claims VALUES ('old', 'c', 1, NULL, 'Room 12.', 'room 12', 'room 12', ['12'], ['12'])""")
    con.execute("INSERT INTO citations VALUES ('old', 'c', 'k2', 1)")
    con.close()
    with open_warehouse(db, write=True):
        pass
    assert rows(db, f"SELECT {CHUNK_COLUMNS} FROM chunks ORDER BY ordinal") == [
        ("k1", 1, "d", "", [], "", [], [], ""),
        ("k2", 2, None, "Room 12 is free. Yes.", ["room", "12", "is", "free", "yes"], "room 12 is free yes",
         ["room", "12", "is", "free", "yes"], ["12"], "Room 12 is free."),
    ]
    assert rows(db, "SELECT status FROM claim_status") == [("SUPPORTED",)]
    assert rows(db, "SELECT sentence_norm FROM sentence_norms ORDER BY sentence_norm") == [("",), ("room 12 is free",)]
