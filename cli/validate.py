"""Validation of staged input: every rule a run's files must meet before anything is written.

Each check is one SQL query over the staging tables that returns the first
offending row, turned into an InputError naming the file, the row and the
column. A citation of an unknown chunk is not an error: it is DANGLING.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from evalwh.errors import InputError
from evalwh.sources import Staged, quote_ident

EXPECTED_VALUES: tuple[str, ...] = ("answer", "refuse", "flag_premise")
# expected as written -> canonical value: case and surrounding spaces ignored, two aliases accepted
EXPECTED_SQL = (
    "CASE lower(trim(expected)) WHEN 'abstain' THEN 'refuse' WHEN 'flag premise' THEN 'flag_premise' "
    "ELSE lower(trim(expected)) END"
)


@dataclass(frozen=True)
class TableSpec:
    """What one input file must and may hold."""

    kind: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()          # id columns: non-empty, no tab or newline
    unique: str | None = None          # the column that identifies a row
    list_columns: tuple[str, ...] = ()


SPECS: dict[str, TableSpec] = {
    "chunks": TableSpec("chunks", ("chunk_id", "text"), ("doc_id",), ids=("chunk_id",), unique="chunk_id"),
    "claims": TableSpec(
        "claims", ("claim_id", "text", "quote"), ("question_id", "cited"),
        ids=("claim_id",), unique="claim_id", list_columns=("cited",),
    ),
    "citations": TableSpec("citations", ("claim_id", "chunk_id"), ids=("claim_id", "chunk_id")),
    "questions": TableSpec(
        "questions", ("question_id", "question", "expected"), ("gold", "gold_chunk_id", "acceptable_answers"),
        ids=("question_id",), unique="question_id",
    ),
    "retrievals": TableSpec("retrievals", ("question_id", "chunk_id", "rank", "score"), ids=("question_id", "chunk_id")),
    "responses": TableSpec(
        "responses", ("question_id",), ("output", "answer", "cited", "refused"),
        ids=("question_id",), unique="question_id", list_columns=("cited",),
    ),
    "grades": TableSpec("grades", ("item_id", "grader", "label"), ids=("item_id", "grader")),
}


def _first(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] = ()) -> tuple | None:
    return con.execute(sql, list(params)).fetchone()


def validate_table(con: duckdb.DuckDBPyConnection, staged: Staged, spec: TableSpec) -> None:
    """Columns present; ids non-empty, free of tabs and newlines, and unique where they must be."""
    for column in spec.required:
        if column not in staged.columns:
            found = ", ".join(sorted(staged.columns)) or "none"
            raise InputError(staged.name, f"missing column {column!r} (found: {found})", column=column)
    for column in spec.ids:
        row = _first(
            con,
            f"SELECT row_no FROM {staged.table} WHERE {quote_ident(column)} IS NULL OR {quote_ident(column)} = '' "
            "ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(staged.name, "empty id", row=row[0], column=column)
        row = _first(
            con,
            f"SELECT row_no FROM {staged.table} WHERE regexp_matches({quote_ident(column)}, '[\\t\\n\\r]') "
            "ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(staged.name, "id contains a tab or newline", row=row[0], column=column)
    if spec.unique:
        col = quote_ident(spec.unique)
        row = _first(
            con,
            f"SELECT row_no, {col}, first_row FROM ("
            f"  SELECT row_no, {col}, min(row_no) OVER (PARTITION BY {col}) AS first_row FROM {staged.table}"
            f") WHERE row_no > first_row ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(
                staged.name, f"duplicate id {row[1]!r} (first at row {row[2]})", row=row[0], column=spec.unique
            )
    for column in spec.list_columns:
        if column not in staged.columns:
            continue
        row = _first(
            con,
            f"SELECT row_no, i FROM {staged.table}, unnest({quote_ident(column)}) AS u(i) "
            "WHERE i IS NULL OR i = '' OR regexp_matches(i, '[\\t\\n\\r]') ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(staged.name, "cited ids must be non-empty, without tabs or newlines", row=row[0], column=column)


def validate_citations(con: duckdb.DuckDBPyConnection, citations: Staged, claims: Staged | None) -> None:
    """Every citation names a claim of the claims file."""
    if claims is None:
        raise InputError(citations.name, "citations need a claims file beside them")
    row = _first(
        con,
        f"SELECT ci.row_no, ci.claim_id FROM {citations.table} AS ci "
        f"ANTI JOIN {claims.table} AS cl ON cl.claim_id = ci.claim_id ORDER BY ci.row_no LIMIT 1",
    )
    if row:
        raise InputError(citations.name, f"unknown claim {row[1]!r}", row=row[0], column="claim_id")


def validate_questions(con: duckdb.DuckDBPyConnection, questions: Staged, chunks: Staged | None) -> None:
    """``expected`` is a known behaviour (or an alias of one); a gold chunk id names a chunk."""
    allowed = ", ".join(f"'{v}'" for v in EXPECTED_VALUES)
    row = _first(
        con,
        f"SELECT row_no, expected FROM {questions.table} WHERE expected IS NULL OR {EXPECTED_SQL} NOT IN ({allowed}) "
        "ORDER BY row_no LIMIT 1",
    )
    if row:
        raise InputError(
            questions.name,
            f"unknown expected value {row[1]!r} (use answer, refuse or flag_premise)",
            row=row[0],
            column="expected",
        )
    if "gold_chunk_id" in questions.columns and chunks is not None:
        row = _first(
            con,
            f"SELECT q.row_no, q.gold_chunk_id FROM {questions.table} AS q "
            f"WHERE coalesce(q.gold_chunk_id, '') <> '' "
            f"AND q.gold_chunk_id NOT IN (SELECT chunk_id FROM {chunks.table}) ORDER BY q.row_no LIMIT 1",
        )
        if row:
            raise InputError(questions.name, f"unknown chunk {row[1]!r}", row=row[0], column="gold_chunk_id")


def validate_question_refs(con: duckdb.DuckDBPyConnection, staged: Staged, questions: Staged | None) -> None:
    """Every row of retrievals or responses names a question of the questions file."""
    if questions is None:
        raise InputError(staged.name, f"{staged.kind} need a questions file beside them")
    row = _first(
        con,
        f"SELECT s.row_no, s.question_id FROM {staged.table} AS s "
        f"ANTI JOIN {questions.table} AS q ON q.question_id = s.question_id ORDER BY s.row_no LIMIT 1",
    )
    if row:
        raise InputError(staged.name, f"unknown question {row[1]!r}", row=row[0], column="question_id")


def validate_retrievals(con: duckdb.DuckDBPyConnection, retrievals: Staged) -> None:
    """Ranks are whole numbers from 1, unique per question; scores are numbers or empty."""
    table = retrievals.table
    row = _first(
        con,
        f"SELECT row_no, rank FROM {table} WHERE try_cast(trim(rank) AS INTEGER) IS NULL "
        "OR try_cast(trim(rank) AS INTEGER) < 1 ORDER BY row_no LIMIT 1",
    )
    if row:
        raise InputError(retrievals.name, f"rank must be a whole number from 1, not {row[1]!r}", row=row[0], column="rank")
    row = _first(
        con,
        f"SELECT row_no, score FROM {table} WHERE coalesce(trim(score), '') <> '' "
        "AND try_cast(trim(score) AS DOUBLE) IS NULL ORDER BY row_no LIMIT 1",
    )
    if row:
        raise InputError(retrievals.name, f"score must be a number, not {row[1]!r}", row=row[0], column="score")
    row = _first(
        con,
        f"SELECT row_no, question_id, first_row FROM ("
        f"  SELECT row_no, question_id, min(row_no) OVER (PARTITION BY question_id, CAST(trim(rank) AS INTEGER)) "
        f"  AS first_row FROM {table}"
        f") WHERE row_no > first_row ORDER BY row_no LIMIT 1",
    )
    if row:
        raise InputError(
            retrievals.name, f"question {row[1]!r} has this rank twice (first at row {row[2]})", row=row[0], column="rank"
        )


RESPONSE_COLUMNS = {"two_line": "output", "bracket": "output", "structured": "answer"}


def validate_responses(con: duckdb.DuckDBPyConnection, responses: Staged, reader_format: str) -> None:
    """The column the reader format needs is there; ``refused`` holds booleans."""
    needed = RESPONSE_COLUMNS[reader_format]
    if needed not in responses.columns:
        found = ", ".join(sorted(responses.columns)) or "none"
        raise InputError(responses.name, f"missing column {needed!r} for reader format {reader_format!r} (found: {found})",
                         column=needed)
    if "refused" in responses.columns:
        row = _first(
            con,
            f"SELECT row_no, refused FROM {responses.table} WHERE coalesce(trim(refused), '') <> '' "
            "AND try_cast(trim(refused) AS BOOLEAN) IS NULL ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(responses.name, f"refused must be true or false, not {row[1]!r}", row=row[0], column="refused")


def validate_grades(con: duckdb.DuckDBPyConnection, grades: Staged) -> None:
    """One grade per (item, grader), and no empty label."""
    row = _first(con, f"SELECT row_no FROM {grades.table} WHERE coalesce(trim(label), '') = '' ORDER BY row_no LIMIT 1")
    if row:
        raise InputError(grades.name, "empty label", row=row[0], column="label")
    row = _first(
        con,
        f"SELECT row_no, item_id, grader, first_row FROM ("
        f"  SELECT row_no, item_id, grader, min(row_no) OVER (PARTITION BY item_id, lower(trim(grader))) AS first_row "
        f"  FROM {grades.table}"
        f") WHERE row_no > first_row ORDER BY row_no LIMIT 1",
    )
    if row:
        raise InputError(grades.name, f"item {row[1]!r} graded twice by {row[2]!r} (first at row {row[3]})",
                         row=row[0], column="grader")
