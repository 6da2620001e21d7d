"""citation_pairs decides each (claim, cited id) pair by the rule: chunk_exists, and quote_found (norm(quote)
inside norm(chunk text), an empty quote inside every text), pair by pair, whether the citations come as a
file or as each claim's cited list, and against the run's own chunk ids when the corpus is shared.

Hand-worked edge cases; the chapter seed's pairs are pinned by tests/expected/chapter3/citation_pairs.csv
(test_views) and generated datasets' by tests/reference.py (test_reference_property)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalwh.loader import load_run
from tests.conftest import rows, write_table

CHUNKS = [("k1", "Room 12 is free on Monday."), ("k2", "The desk opens at 9."), ("k3", "")]
# claim id, text, quote, cited ids in order
CLAIMS = [
    ("sound", "Room 12 is free.", "room 12 is FREE", ["k1"]),
    ("absent", "The desk opens at 9.", "the desk closes", ["k2"]),
    ("dangling", "Room 12 is free.", "Room 12", ["k1", "k9"]),
    ("empty-quote", "Free.", "", ["k2", "k3"]),
    ("empty-text", "Free.", "free", ["k3"]),
    ("twice", "Room 12 is free.", "free on monday", ["k2", "k1", "k1"]),  # 12 is not in the quote
    ("uncited", "Room 12 is free.", "room 12", []),
]
# (claim, ordinal, chunk, chunk_exists, quote_found) by the rule, worked out by hand
EXPECTED = [
    ("sound", 1, "k1", True, True),
    ("absent", 1, "k2", True, False),
    ("dangling", 1, "k1", True, True),
    ("dangling", 2, "k9", False, False),
    ("empty-quote", 1, "k2", True, True),
    ("empty-quote", 2, "k3", True, True),
    ("empty-text", 1, "k3", True, False),
    ("twice", 1, "k2", True, False),
    ("twice", 2, "k1", True, True),
    ("twice", 3, "k1", True, True),
]
PAIRS = "SELECT claim_id, ordinal, chunk_id, chunk_exists, quote_found FROM {} ORDER BY claim_id, ordinal"


def run_folder(root: Path, cited_list: bool) -> Path:
    folder = root / ("cited" if cited_list else "file")
    write_table(folder / "chunks.csv", ["chunk_id", "text"], CHUNKS)
    if cited_list:
        write_table(folder / "claims.jsonl", ["claim_id", "text", "quote", "cited"], CLAIMS)
    else:
        write_table(folder / "claims.csv", ["claim_id", "text", "quote"], [c[:3] for c in CLAIMS])
        write_table(folder / "citations.csv", ["claim_id", "chunk_id"],
                    [(claim, chunk) for claim, _, _, cited in CLAIMS for chunk in cited])
    return folder


@pytest.mark.parametrize("cited_list", [False, True], ids=["citations-file", "cited-list"])
def test_each_pairs_verdict_is_the_rule(tmp_path: Path, cited_list: bool) -> None:
    db = tmp_path / "wh.duckdb"
    load_run(db, run_folder(tmp_path, cited_list), run="r")
    assert rows(db, PAIRS.format("citation_pairs")) == sorted(EXPECTED)
    assert dict(rows(db, "SELECT claim_id, status FROM claim_status")) == {
        "sound": "SUPPORTED", "absent": "UNSUPPORTED", "dangling": "DANGLING", "empty-quote": "SUPPORTED",
        "empty-text": "UNSUPPORTED", "twice": "NUMBER_MISMATCH", "uncited": "UNCITED",
    }


def test_a_second_run_over_the_stored_corpus_decides_its_own_pairs(tmp_path: Path) -> None:
    """The second run's texts are already in the warehouse (nothing is normalised again); its pairs are
    still decided against its own chunk ids, of which k1 now names another text."""
    db = tmp_path / "wh.duckdb"
    load_run(db, run_folder(tmp_path, cited_list=False), run="a")
    second = tmp_path / "second"
    write_table(second / "chunks.csv", ["chunk_id", "text"], [("k1", "The desk opens at 9."), ("k2", CHUNKS[0][1])])
    write_table(second / "claims.csv", ["claim_id", "text", "quote"], [("sound", "Room 12 is free.", "room 12")])
    write_table(second / "citations.csv", ["claim_id", "chunk_id"], [("sound", "k1"), ("sound", "k2")])
    assert load_run(db, second, run="b").normalised == 0
    assert rows(db, "SELECT chunk_id, chunk_exists, quote_found FROM citation_pairs WHERE run_id = 'b' "
                    "ORDER BY ordinal") == [("k1", True, False), ("k2", True, True)]
