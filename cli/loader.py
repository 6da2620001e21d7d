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
from typing import Any
from pathlib import Path

import duckdb

from evalwh.errors import InputError, UsageError
from evalwh.progress import progress
from evalwh.reader import register_reader_udfs
from evalwh.settings import RunSettings, read_run_toml, with_overrides
from evalwh.sources import Staged, check_utf8, find_input, quote_ident, stage
from evalwh.textnorm import CHAPTER_STOPWORDS, register_udfs
from evalwh.validate import (
    EXPECTED_SQL,
    SPECS,
    validate_citations,
    validate_question_refs,
    validate_questions,
    validate_retrievals,
    validate_table,
)
from evalwh.warehouse import LATEST, attach, migrate

DEFAULT_THRESHOLDS: tuple[int, ...] = (1, 2, 3, 4, 5)


@dataclass
class LoadResult:
    """What a load wrote."""

    run_id: str
    replaced: bool
    counts: dict[str, int] = field(default_factory=dict)


def read_stopwords(directory: Path, settings: RunSettings) -> tuple[list[str], str]:
    """The run's stop list: run.toml's ``stopwords``, else ``stopwords.txt`` (one word a line), else the chapter's."""
    if settings.stopwords is not None:
        return sorted(set(settings.stopwords)), "run.toml"
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
    questions = staged.get("questions")
    if questions is not None:
        validate_questions(con, questions, staged["chunks"])
    for kind in ("retrievals", "responses"):
        if kind in staged:
            validate_question_refs(con, staged[kind], questions)
    if "retrievals" in staged:
        validate_retrievals(con, staged["retrievals"])
    return staged


def _opt(staged: Staged, column: str, default: str = "NULL") -> str:
    return f"s.{quote_ident(column)}" if column in staged.columns else default


def write_run(con: duckdb.DuckDBPyConnection, run_id: str, staged: dict[str, Staged], tokenizer: str) -> dict[str, int]:
    """Insert the staged rows as run ``run_id`` (inside the caller's transaction).

    Every text is normalised here, once, by the UDFs; the views read the stored columns.
    """
    run = {"run": run_id, "tokenizer": tokenizer}
    chunks = staged["chunks"]
    con.execute(
        f"""INSERT INTO chunks BY NAME
        SELECT $run AS run_id, s.chunk_id, s.row_no AS ordinal, {_opt(chunks, 'doc_id')} AS doc_id, s.text,
               words(s.text) AS text_words, norm(s.text) AS text_norm, terms(s.text, $tokenizer) AS text_terms,
               numbers(s.text) AS text_numbers, first_sentence(s.text) AS first_sentence,
               squad_tokens(first_sentence(s.text)) AS first_sentence_tokens
        FROM (SELECT * REPLACE (coalesce(text, '') AS text) FROM {chunks.table}) AS s ORDER BY s.row_no""",
        run,
    )
    if "claims" in staged:
        claims = staged["claims"]
        con.execute(
            f"""INSERT INTO claims BY NAME
            SELECT $run AS run_id, s.claim_id, s.row_no AS ordinal, {_opt(claims, 'question_id')} AS question_id,
                   s.text, s.quote, norm(s.quote) AS quote_norm,
                   digit_runs(s.text) AS text_digits, digit_runs(s.quote) AS quote_digits
            FROM (SELECT * REPLACE (coalesce(text, '') AS text, coalesce(quote, '') AS quote) FROM {claims.table}) AS s
            ORDER BY s.row_no""",
            {"run": run_id},
        )
        if "cited" in claims.columns:
            con.execute(
                "INSERT INTO citations BY NAME SELECT $run AS run_id, s.claim_id, s.cited[i] AS chunk_id, i AS ordinal "
                f"FROM {claims.table} AS s, generate_series(1, len(coalesce(s.cited, []))) AS g(i)",
                {"run": run_id},
            )
    if "citations" in staged:
        con.execute(
            "INSERT INTO citations BY NAME SELECT $run AS run_id, s.claim_id, s.chunk_id, "
            "row_number() OVER (PARTITION BY s.claim_id ORDER BY s.row_no) AS ordinal "
            f"FROM {staged['citations'].table} AS s",
            {"run": run_id},
        )
    if "questions" in staged:
        questions = staged["questions"]
        con.execute(
            f"""INSERT INTO questions BY NAME
            SELECT $run AS run_id, s.question_id, s.row_no AS ordinal, s.question, {EXPECTED_SQL} AS expected,
                   s.gold, norm(s.gold) AS gold_norm, words(s.question) AS question_words,
                   terms(s.question, $tokenizer) AS question_terms, nullif(s.gold_chunk_id, '') AS gold_chunk_id,
                   variants(s.acceptable) AS acceptable_answers, squad_variants(s.acceptable) AS acceptable_tokens
            FROM (SELECT row_no, question_id, expected, coalesce(question, '') AS question,
                         coalesce({_opt(questions, 'gold')}, '') AS gold,
                         {_opt(questions, 'gold_chunk_id')} AS gold_chunk_id,
                         coalesce({_opt(questions, 'acceptable_answers')}, '') AS acceptable
                  FROM {questions.table} AS s) AS s
            ORDER BY s.row_no""",
            run,
        )
    if "retrievals" in staged:
        con.execute(
            "INSERT INTO retrievals BY NAME SELECT $run AS run_id, s.question_id, s.chunk_id, "
            "CAST(trim(s.rank) AS INTEGER) AS rank, try_cast(nullif(trim(s.score), '') AS DOUBLE) AS score "
            f"FROM {staged['retrievals'].table} AS s",
            {"run": run_id},
        )
    elif "questions" in staged:
        con.execute(
            "INSERT INTO retrievals BY NAME SELECT run_id, question_id, chunk_id, rank, score "
            "FROM builtin_retrieval WHERE run_id = $run",
            {"run": run_id},
        )
    if "responses" in staged:
        con.execute(
            f"""INSERT INTO responses BY NAME
            SELECT $run AS run_id, s.question_id, s.row_no AS ordinal, s.output,
                   p.parse_ok, p.answer, p.sources, squad_tokens(coalesce(p.answer, '')) AS answer_tokens,
                   answer_numbers(p.answer, p.sources) AS answer_numbers
            FROM (SELECT *, parse_output(output) AS p
                  FROM (SELECT * REPLACE (coalesce(output, '') AS output) FROM {staged['responses'].table})) AS s""",
            {"run": run_id},
        )
    return {
        table: con.execute(f"SELECT count(*) FROM {table} WHERE run_id = ?", [run_id]).fetchone()[0]
        for table in ("chunks", "claims", "citations", "questions", "retrievals", "responses")
    }


# a replaced run loses its rows here, its materialised history included
RUN_TABLES: tuple[str, ...] = (
    "citations", "claims", "questions", "chunks", "retrievals", "responses",
    "metrics_history", "claim_status_history", "runs",
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
    overrides: dict[str, Any] | None = None,
) -> LoadResult:
    """Validate every input file in ``directory``, then write it as one run of the warehouse at ``db``.

    ``overrides`` (retriever, top_k, tokenizer, abstain_marker, premise_marker) win over run.toml.
    """
    run_id = check_run_name(run if run is not None else directory.resolve().name)
    if not thresholds:
        raise UsageError("at least one threshold is needed")
    if not directory.is_dir():
        raise InputError(str(directory), "no such directory")
    settings = with_overrides(read_run_toml(directory), **(overrides or {}))
    con = duckdb.connect()
    try:
        register_udfs(con)
        register_reader_udfs(con)
        with progress(f"load {run_id}", len(SPECS) + 1) as advance:
            staged = stage_directory(con, directory, advance)
            stopwords, stop_source = read_stopwords(directory, settings)
            advance(len(SPECS) - len(staged))
            params = {
                "thresholds": sorted(set(int(t) for t in thresholds)),
                "stopwords": stopwords,
                "stopwords_source": stop_source,
                **settings.params(),
                "retrieval_source": "file" if "retrievals" in staged else f"builtin:{settings.retriever}",
            }
            counts = _write(con, db, run_id, staged, params=params, label=label,
                            source=source or str(directory.resolve()), replace=replace)
            advance(1)
        return LoadResult(run_id=run_id, replaced=counts.pop("replaced") == 1, counts=counts)
    finally:
        con.close()


def _write(
    con: duckdb.DuckDBPyConnection, db: Path, run_id: str, staged: dict[str, Staged], *,
    params: dict[str, Any], label: str | None, source: str, replace: bool,
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
        counts = write_run(con, run_id, staged, str(params["tokenizer"]))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {**counts, "replaced": int(exists)}
