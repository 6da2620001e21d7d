"""Loading a run: read every input file, validate all of it, then write it in one transaction.

Validation happens in an in-memory DuckDB before the warehouse file is even
opened, so bad input leaves the warehouse exactly as it was (or absent).
Each failure is an InputError naming the file, the row and the column.
A citation of an unknown chunk is not an error: it is the DANGLING status.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from evalwh.errors import InputError, UsageError
from evalwh.progress import progress
from evalwh.sources import Staged, check_utf8, find_input, stage
from evalwh.textnorm import CHAPTER_STOPWORDS, register_udfs
from evalwh.warehouse import LATEST, attach, migrate

DEFAULT_THRESHOLDS: tuple[int, ...] = (1, 2, 3, 4, 5)
EXPECTED_VALUES: tuple[str, ...] = ("answer", "refuse")


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
        "questions", ("question_id", "question", "expected", "gold"), ids=("question_id",), unique="question_id"
    ),
}


@dataclass
class LoadResult:
    """What a load wrote."""

    run_id: str
    replaced: bool
    counts: dict[str, int] = field(default_factory=dict)


def _first(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[object] = ()) -> tuple | None:
    return con.execute(sql, list(params)).fetchone()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def validate_table(con: duckdb.DuckDBPyConnection, staged: Staged, spec: TableSpec) -> None:
    """Columns present; ids non-empty, free of tabs and newlines, and unique where they must be."""
    for column in spec.required:
        if column not in staged.columns:
            found = ", ".join(sorted(staged.columns)) or "none"
            raise InputError(staged.name, f"missing column {column!r} (found: {found})", column=column)
    for column in spec.ids:
        row = _first(
            con,
            f"SELECT row_no FROM {staged.table} WHERE {_q(column)} IS NULL OR {_q(column)} = '' "
            "ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(staged.name, "empty id", row=row[0], column=column)
        row = _first(
            con,
            f"SELECT row_no FROM {staged.table} WHERE regexp_matches({_q(column)}, '[\\t\\n\\r]') "
            "ORDER BY row_no LIMIT 1",
        )
        if row:
            raise InputError(staged.name, "id contains a tab or newline", row=row[0], column=column)
    if spec.unique:
        col = _q(spec.unique)
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
            f"SELECT row_no, i FROM {staged.table}, unnest({_q(column)}) AS u(i) "
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


def validate_questions(con: duckdb.DuckDBPyConnection, questions: Staged) -> None:
    """``expected`` is one of the known behaviours."""
    allowed = ", ".join(f"'{v}'" for v in EXPECTED_VALUES)
    row = _first(
        con,
        f"SELECT row_no, expected FROM {questions.table} WHERE expected IS NULL OR expected NOT IN ({allowed}) "
        "ORDER BY row_no LIMIT 1",
    )
    if row:
        raise InputError(
            questions.name,
            f"unknown expected value {row[1]!r} (use {' or '.join(EXPECTED_VALUES)})",
            row=row[0],
            column="expected",
        )


def read_stopwords(directory: Path) -> tuple[list[str], str]:
    """The run's stop list: ``stopwords.txt`` (one word a line) if present, else the chapter's."""
    path = directory / "stopwords.txt"
    if not path.is_file():
        return list(CHAPTER_STOPWORDS), "chapter"
    check_utf8(path)
    text = path.read_text(encoding="utf-8")
    words = [line.strip() for line in text.splitlines() if line.strip()]
    return sorted(set(words)), "stopwords.txt"


def stage_directory(
    con: duckdb.DuckDBPyConnection, directory: Path, advance: Callable[[int], None] = lambda n: None
) -> dict[str, Staged]:
    """Find, read and validate every input file of a run directory; ``advance(1)`` after each file."""
    if not directory.is_dir():
        raise InputError(str(directory), "no such directory")
    paths = {kind: find_input(directory, kind) for kind in SPECS}
    if paths["chunks"] is None:
        raise InputError(str(directory / "chunks.csv"), "missing file (chunks are required, as .csv, .tsv, .jsonl or .parquet)")
    if paths["claims"] is None and paths["questions"] is None:
        raise InputError(str(directory / "claims.csv"), "missing file: a run needs claims or questions (or both)")
    staged: dict[str, Staged] = {}
    for kind, path in paths.items():
        if path is None:
            continue
        spec = SPECS[kind]
        staged[kind] = stage(con, path, kind, spec.required + spec.optional, spec.list_columns)
        validate_table(con, staged[kind], spec)
        advance(1)
    claims = staged.get("claims")
    if claims is not None and "cited" in claims.columns and "citations" in staged:
        raise InputError(
            claims.name, f"claims carry a cited list and {staged['citations'].name} exists; keep one", column="cited"
        )
    if "citations" in staged:
        validate_citations(con, staged["citations"], claims)
    if "questions" in staged:
        validate_questions(con, staged["questions"])
    return staged


def _opt(staged: Staged, column: str) -> str:
    return f"s.{_q(column)}" if column in staged.columns else "NULL"


def write_run(con: duckdb.DuckDBPyConnection, run_id: str, staged: dict[str, Staged]) -> dict[str, int]:
    """Insert the staged rows as run ``run_id`` (inside the caller's transaction)."""
    chunks = staged["chunks"]
    con.execute(
        f"INSERT INTO chunks SELECT $run, s.chunk_id, s.row_no, {_opt(chunks, 'doc_id')}, "
        "coalesce(s.text, ''), words(coalesce(s.text, '')), norm(coalesce(s.text, '')) "
        f"FROM {chunks.table} AS s ORDER BY s.row_no",
        {"run": run_id},
    )
    if "claims" in staged:
        claims = staged["claims"]
        con.execute(
            f"INSERT INTO claims SELECT $run, s.claim_id, s.row_no, {_opt(claims, 'question_id')}, "
            "coalesce(s.text, ''), coalesce(s.quote, ''), norm(coalesce(s.quote, '')), "
            "digit_runs(coalesce(s.text, '')), digit_runs(coalesce(s.quote, '')) "
            f"FROM {claims.table} AS s ORDER BY s.row_no",
            {"run": run_id},
        )
        if "cited" in claims.columns:
            con.execute(
                "INSERT INTO citations SELECT $run, s.claim_id, s.cited[i], i "
                f"FROM {claims.table} AS s, generate_series(1, len(coalesce(s.cited, []))) AS g(i)",
                {"run": run_id},
            )
    if "citations" in staged:
        con.execute(
            "INSERT INTO citations SELECT $run, s.claim_id, s.chunk_id, "
            "row_number() OVER (PARTITION BY s.claim_id ORDER BY s.row_no) "
            f"FROM {staged['citations'].table} AS s",
            {"run": run_id},
        )
    if "questions" in staged:
        con.execute(
            "INSERT INTO questions SELECT $run, s.question_id, s.row_no, coalesce(s.question, ''), s.expected, "
            "coalesce(s.gold, ''), norm(coalesce(s.gold, '')), words(coalesce(s.question, '')) "
            f"FROM {staged['questions'].table} AS s ORDER BY s.row_no",
            {"run": run_id},
        )
    return {
        table: con.execute(f"SELECT count(*) FROM {table} WHERE run_id = ?", [run_id]).fetchone()[0]
        for table in ("chunks", "claims", "citations", "questions")
    }


# a replaced run loses its rows here, its materialised history included
RUN_TABLES: tuple[str, ...] = (
    "citations", "claims", "questions", "chunks", "metrics_history", "claim_status_history", "runs",
)


def check_run_name(name: str) -> str:
    """A run name is non-empty, is not the word ``latest`` and has no tab or newline."""
    if not name or name.strip() != name or any(ch in name for ch in "\t\r\n"):
        raise UsageError(f"invalid run name {name!r}: it must be non-empty, without surrounding spaces, tabs or newlines")
    if name == LATEST:
        raise UsageError(f"{LATEST!r} is reserved for the most recent run; choose another run name")
    return name


def load_run(
    db: Path,
    directory: Path,
    *,
    run: str | None = None,
    label: str | None = None,
    replace: bool = False,
    thresholds: Sequence[int] = DEFAULT_THRESHOLDS,
    source: str | None = None,
) -> LoadResult:
    """Validate every input file in ``directory``, then write it as one run of the warehouse at ``db``."""
    run_id = check_run_name(run if run is not None else directory.resolve().name)
    if not thresholds:
        raise UsageError("at least one threshold is needed")
    con = duckdb.connect()
    try:
        register_udfs(con)
        with progress(f"load {run_id}", len(SPECS) + 1) as advance:
            staged = stage_directory(con, directory, advance)
            stopwords, stop_source = read_stopwords(directory)
            advance(len(SPECS) - len(staged))
            counts = _write(con, db, run_id, staged, params=_params(thresholds, stopwords, stop_source),
                            label=label, source=source or str(directory.resolve()), replace=replace)
            advance(1)
        return LoadResult(run_id=run_id, replaced=counts.pop("replaced") == 1, counts=counts)
    finally:
        con.close()


def _params(thresholds: Sequence[int], stopwords: list[str], stop_source: str) -> dict[str, object]:
    return {"thresholds": sorted(set(int(t) for t in thresholds)), "stopwords": stopwords,
            "stopwords_source": stop_source}


def _write(
    con: duckdb.DuckDBPyConnection, db: Path, run_id: str, staged: dict[str, Staged], *,
    params: dict[str, object], label: str | None, source: str, replace: bool,
) -> dict[str, int]:
    """Attach the warehouse and write the run in one transaction; counts rows, plus ``replaced``."""
    attach(con, db, read_only=False)
    con.execute("BEGIN TRANSACTION")
    try:
        migrate(con, db)
        exists = con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchone()[0] > 0
        if exists and not replace:
            raise UsageError(f"run {run_id!r} already exists; pass --replace to swap it, or --run to name a new one")
        if exists:
            for table in RUN_TABLES:
                con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        previous = con.execute("SELECT max(created_at) FROM runs").fetchone()[0]
        created = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
        if previous is not None and created <= previous:
            created = previous + dt.timedelta(microseconds=1)
        con.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?)", [run_id, created, label, source, json.dumps(params)]
        )
        counts = write_run(con, run_id, staged)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {**counts, "replaced": int(exists)}
