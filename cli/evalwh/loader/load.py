"""Loading a run: read every input file, validate all of it, then write it in one transaction.

Validation happens in an in-memory DuckDB before the warehouse file is even
opened, so bad input leaves the warehouse exactly as it was (or absent).
Each failure is an InputError naming the file, the row and the column.
A citation of an unknown chunk is not an error: it is the DANGLING status.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from evalwh.errors import InputError, UsageError
from evalwh.history.materialize import metrics_stored, store_metrics
from evalwh.invocation import QUIET, Invocation
from evalwh.loader.encoding import check_utf8, data_suffix
from evalwh.loader.locate import csv_line_of_row, jsonl_line_of_row
from evalwh.loader.retrieval import overlap_scores, write_builtin_retrieval
from evalwh.loader.run_toml import MAX_THRESHOLD, RunSettings, read_run_toml, with_overrides
from evalwh.loader.sources import Staged, check_directory, csv_delimiter, find_input, stage
from evalwh.loader.validate import (
    EXPECTED_SQL,
    SPECS,
    validate_citations,
    validate_grades,
    validate_question_refs,
    validate_questions,
    validate_responses,
    validate_retrievals,
    validate_table,
)
from evalwh.location import Location
from evalwh.output.terminal import progress
from evalwh.sqltext import sql_identifier
from evalwh.text.nativetext import register_native_macros
from evalwh.text.reader_output import register_reader_udfs
from evalwh.text.textnorm import CHAPTER_STOPWORDS, register_udfs
from evalwh.warehouse.connection import (
    LOAD_MEMORY_LIMIT,
    attach_writer,
    drop_temp_tables,
    limit_memory,
    new_connection,
    one,
    scalar,
    write_transaction,
)
from evalwh.warehouse.runs import check_run_name, moment_after, run_tables, unparsed_responses
from evalwh.warehouse.schema import migrate

DEFAULT_THRESHOLDS: tuple[int, ...] = (1, 2, 3, 4, 5)


@dataclass
class LoadResult:
    """What a load wrote."""

    run_id: str
    replaced: bool
    counts: dict[str, int] = field(default_factory=dict)
    normalised: int = 0  # chunk texts new to the warehouse, normalised by this load
    unparsed: tuple[str, ...] = ()  # question ids of the responses that do not parse, in file order
    reader_format: str = "two_line"
    unchanged: bool = False  # the run already held exactly this input: nothing was written


def input_digest(paths: Iterable[Path], settings: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A sha256 of the input files' bytes (in the given order, each with its name) and the load's settings:
    what a run's ``content_digest`` holds, so that a load of identical input under its id is recognised;
    and the run's manifest: each file's own sha256, the settings, and the release and rules loading it."""
    import hashlib

    from evalwh import __version__
    from evalwh.vocabulary import RULES_VERSION

    digest = hashlib.sha256()
    files: dict[str, str] = {}
    for path in paths:
        digest.update(f"{path.name}\0".encode())
        with path.open("rb") as handle:
            one_file = hashlib.file_digest(handle, "sha256").digest()
        digest.update(one_file)
        files[path.name] = "sha256:" + one_file.hex()
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    manifest = {"evalwh": __version__, "rules_version": RULES_VERSION, "files": files, "settings": settings}
    return digest.hexdigest(), manifest


def read_stopwords(directory: Path, settings: RunSettings) -> tuple[list[str], str]:
    """The run's stop list: run.toml's ``stopwords``, else ``stopwords.txt`` (one word a line), else the chapter's."""
    if settings.stopwords is not None:
        return sorted(set(settings.stopwords)), "run.toml"
    path = directory / "stopwords.txt"
    if not path.is_file():
        return list(CHAPTER_STOPWORDS), "chapter"
    check_utf8(path)
    text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is not part of the first word
    words = [line.strip() for line in text.splitlines() if line.strip()]
    return sorted(set(words)), "stopwords.txt"


def with_line(error: InputError, paths: dict[str, Path | None]) -> InputError:
    """The error, also naming the line its row starts on where that is not the obvious line
    (blank lines skipped, a quoted field spanning lines)."""
    path = next((p for p in paths.values() if p is not None and p.name == error.file), None)
    if path is None or error.row is None or error.line is not None or data_suffix(path) == ".parquet":
        return error
    if data_suffix(path) == ".jsonl":
        line, obvious = jsonl_line_of_row(path, error.row), error.row
    else:
        line, obvious = csv_line_of_row(path, csv_delimiter(path), error.row), error.row + 1
    return error if line is None or line == obvious else error.at_line(line)


def stage_directory(
    con: duckdb.DuckDBPyConnection,
    directory: Path,
    settings: RunSettings,
    advance: Callable[[int], None] = lambda n: None,
    allow_extra: bool = False,
) -> dict[str, Staged]:
    """Find, read and validate every input file of a run directory; ``advance(1)`` after each file.

    An input-looking file or a column evalwh does not know is an error unless ``allow_extra``.
    """
    if not directory.is_dir():
        raise InputError(str(directory), "no such directory")
    check_directory(directory, SPECS, allow_extra)
    paths = {kind: find_input(directory, kind) for kind in SPECS}
    try:
        return _stage_and_validate(con, directory, paths, settings, advance, allow_extra)
    except InputError as exc:
        raise with_line(exc, paths) from exc.__cause__


def _stage_and_validate(
    con: duckdb.DuckDBPyConnection,
    directory: Path,
    paths: dict[str, Path | None],
    settings: RunSettings,
    advance: Callable[[int], None],
    allow_extra: bool,
) -> dict[str, Staged]:
    if paths["claims"] is None and paths["questions"] is None:
        raise InputError(str(directory / "claims.csv"), "missing file: a run needs claims or questions (or both)")
    if paths["chunks"] is None and paths["claims"] is not None:
        raise InputError(str(directory / "chunks.csv"),
                         "missing file (a run with claims needs its chunks, as .csv, .tsv, .jsonl or .parquet)")
    staged: dict[str, Staged] = {}
    for kind, path in paths.items():
        if path is None:
            continue
        spec = SPECS[kind]
        staged[kind] = stage(con, path, kind, spec.required + spec.optional, spec.list_columns, allow_extra)
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
        validate_questions(con, questions, staged.get("chunks"))
    for kind in ("retrievals", "responses"):
        if kind in staged:
            validate_question_refs(con, staged[kind], questions)
    if "retrievals" in staged:
        validate_retrievals(con, staged["retrievals"])
    if "responses" in staged:
        validate_responses(con, staged["responses"], settings.format)
    if "grades" in staged:
        validate_grades(con, staged["grades"])
    return staged


def _opt(staged: Staged, column: str, default: str = "NULL") -> str:
    return f"s.{sql_identifier(column)}" if column in staged.columns else default


# DuckDB's rows per row group: a table scan hands each thread whole row groups
ROW_GROUP_ROWS = 122_880


def ranges_union(con: duckdb.DuckDBPyConnection, select: str, table: str, parts: int) -> str:
    """``select`` (which reads ``table`` where ``{part}``) once per range of ``table``'s ordinals, as a UNION ALL.

    The ``parts`` ranges cover every ordinal from the least to the greatest, each once.
    """
    first, last = one(con, f"SELECT coalesce(min(ordinal), 0), coalesce(max(ordinal), 0) FROM {table}")
    size = (last - first) // parts + 1
    return " UNION ALL ".join(
        select.format(part=f"ordinal BETWEEN {first + k * size} AND {first + (k + 1) * size - 1}")
        for k in range(parts)
    )


def _normalise_new_texts(con: duckdb.DuckDBPyConnection, tokenizer: str) -> int:
    """Store each text of the run's chunks that the warehouse lacks, normalised; returns how many.

    A text repeated in the run is taken from its first chunk by a semi-join on ordinals, not by a GROUP BY
    over the texts: rows an aggregate emits are not written to the file as the insert runs, and DuckDB
    then compresses and writes all of them when the connection closes, a cost the load would pay at its end.
    A scan gives each thread whole row groups, so a corpus of fewer row groups than threads would be
    normalised on fewer cores than there are: its new texts are then split into one ordinal range per
    thread, read as a UNION ALL whose branches run side by side, as an insert that need not keep their
    order may (the row order of the content-addressed chunk_texts means nothing).
    """
    new = """SELECT ordinal, text_hash, text FROM temp.run_chunks AS r
        WHERE r.ordinal IN (SELECT min(ordinal) FROM temp.run_chunks GROUP BY text_hash)
          AND NOT EXISTS (SELECT 1 FROM chunk_texts AS t WHERE t.text_hash = r.text_hash)"""
    normalise = """SELECT text_hash, text, native_join(w) AS text_norm, native_numbers(text) AS text_numbers,
               native_first_sentence(text) AS first_sentence,
               CASE WHEN $tokenizer = 'unicode' THEN native_uterms_given(text, w) END AS text_uterms
        FROM (SELECT text_hash, text, native_words(text) AS w FROM {rows})"""
    insert, params = "INSERT INTO chunk_texts BY NAME ", {"tokenizer": tokenizer}
    threads, chunks = one(con, "SELECT current_setting('threads'), count(*) FROM temp.run_chunks")
    if threads < 2 or chunks < 2048 or chunks >= threads * ROW_GROUP_ROWS:
        return int(scalar(con, insert + normalise.format(rows=f"({new})"), params))
    con.execute(f"CREATE OR REPLACE TEMP TABLE new_texts AS {new}")
    con.execute("SET preserve_insertion_order = false")
    try:
        split = ranges_union(con, normalise.format(rows="temp.new_texts WHERE {part}"), "temp.new_texts", threads)
        return int(scalar(con, insert + split, params))
    finally:
        con.execute("RESET preserve_insertion_order")
        con.execute("DROP TABLE temp.new_texts")


def _write_chunks(con: duckdb.DuckDBPyConnection, chunks: Staged, params: dict[str, Any]) -> int:
    """The run's chunk ids mapped to text hashes; texts new to the warehouse normalised once each.

    Returns the number of texts normalised (0 for a run over a corpus the warehouse already holds).
    """
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE run_chunks AS
        SELECT s.row_no AS ordinal, s.chunk_id, {_opt(chunks, 'doc_id')} AS doc_id,
               coalesce(s.text, '') AS text, md5(coalesce(s.text, '')) AS text_hash
        FROM {chunks.table} AS s"""
    )
    normalised = _normalise_new_texts(con, params["tokenizer"])
    if params["tokenizer"] == "unicode":  # texts first stored by an ascii run lack their unicode terms
        normalised += scalar(
            con,
            "UPDATE chunk_texts SET text_uterms = native_uterms(text) WHERE text_uterms IS NULL "
            "AND text_hash IN (SELECT text_hash FROM temp.run_chunks)",
        )
    con.execute(
        "INSERT INTO chunk_refs SELECT $run, chunk_id, ordinal, doc_id, text_hash FROM temp.run_chunks ORDER BY ordinal",
        {"run": params["run"]},
    )
    return int(normalised)


def _write_claims(con: duckdb.DuckDBPyConnection, staged: dict[str, Staged], params: dict[str, Any]) -> None:
    """Claims with their normalised quote and digit runs, and their citations (from a file or a cited list)."""
    claims = staged["claims"]
    con.execute(
        f"""INSERT INTO claims BY NAME
        SELECT $run AS run_id, s.claim_id, s.row_no AS ordinal, {_opt(claims, 'question_id')} AS question_id,
               s.text, s.quote, native_join(native_words(s.quote)) AS quote_norm,
               native_digit_runs(s.text) AS text_digits, native_digit_runs(s.quote) AS quote_digits
        FROM (SELECT * REPLACE (coalesce(text, '') AS text, coalesce(quote, '') AS quote) FROM {claims.table}) AS s""",
        params,
    )
    if "cited" in claims.columns:
        con.execute(
            "INSERT INTO citations BY NAME SELECT $run AS run_id, s.claim_id, s.cited[i] AS chunk_id, i AS ordinal "
            f"FROM {claims.table} AS s, generate_series(1, len(coalesce(s.cited, []))) AS g(i)",
            params,
        )
    if "citations" in staged:
        con.execute(
            "INSERT INTO citations BY NAME SELECT $run AS run_id, s.claim_id, s.chunk_id, "
            "row_number() OVER (PARTITION BY s.claim_id ORDER BY s.row_no) AS ordinal "
            f"FROM {staged['citations'].table} AS s",
            params,
        )


def _write_questions(con: duckdb.DuckDBPyConnection, questions: Staged, params: dict[str, Any]) -> None:
    """Questions with canonical expected values, terms, gold chunk and acceptable answers."""
    con.execute(
        f"""INSERT INTO questions BY NAME
        SELECT $run AS run_id, s.question_id, s.row_no AS ordinal, s.question, {EXPECTED_SQL} AS expected,
               s.gold, native_join(native_words(s.gold)) AS gold_norm, native_words(s.question) AS question_words,
               CASE WHEN $tokenizer = 'unicode' THEN native_uterms(s.question) ELSE native_words(s.question) END
                   AS question_terms, nullif(s.gold_chunk_id, '') AS gold_chunk_id,
               native_variants(s.acceptable) AS acceptable_answers, s.acceptable_tokens,
               native_squad_variant_norms(s.acceptable, s.acceptable_tokens) AS acceptable_norms
        FROM (SELECT *, native_squad_variants(acceptable) AS acceptable_tokens
              FROM (SELECT row_no, question_id, expected, coalesce(question, '') AS question,
                           coalesce({_opt(questions, 'gold')}, '') AS gold,
                           {_opt(questions, 'gold_chunk_id')} AS gold_chunk_id,
                           coalesce({_opt(questions, 'acceptable_answers')}, '') AS acceptable
                    FROM {questions.table} AS s)) AS s
        ORDER BY s.row_no""",
        params,
    )


def _write_retrievals(
    con: duckdb.DuckDBPyConnection, staged: dict[str, Staged], settings: RunSettings, params: dict[str, Any]
) -> None:
    """The retrievals file as given or, without one, the built-in retriever's top k (which needs chunks)."""
    if "retrievals" in staged:
        con.execute(
            "INSERT INTO retrievals BY NAME SELECT $run AS run_id, s.question_id, s.chunk_id, "
            "CAST(trim(s.rank) AS INTEGER) AS rank, try_cast(nullif(trim(s.score), '') AS DOUBLE) AS score "
            f"FROM {staged['retrievals'].table} AS s",
            params,
        )
    elif "questions" in staged and "chunks" in staged:
        write_builtin_retrieval(con, params["run"], settings.retriever, settings.top_k)


def _write_sentence_norms(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> None:
    """squad_normalize of the first sentence of each rank-1 chunk text whose question has acceptable answers
    (what extractive_baseline reads), for texts the warehouse has not normalised yet."""
    con.execute(
        """INSERT INTO sentence_norms
        SELECT text_hash, native_squad_normalize(first_sentence)
        FROM (SELECT DISTINCT c.text_hash, t.first_sentence
              FROM retrievals AS r
              JOIN questions AS q ON q.run_id = r.run_id AND q.question_id = r.question_id
              JOIN chunk_refs AS c ON c.run_id = r.run_id AND c.chunk_id = r.chunk_id
              JOIN chunk_texts AS t ON t.text_hash = c.text_hash
              WHERE r.run_id = $run AND r.rank = 1 AND len(q.acceptable_answers) > 0
                AND NOT EXISTS (SELECT 1 FROM sentence_norms AS n WHERE n.text_hash = c.text_hash))""",
        params,
    )


def _write_responses(
    con: duckdb.DuckDBPyConnection, responses: Staged, reader_format: str, params: dict[str, Any]
) -> None:
    """Responses parsed by the run's reader format.

    two_line: the strict two-line parse of ``output``. bracket: ``output`` is prose whose [n]
    markers name the n-th retrieved chunk; it is also split into response_sentences.
    structured: ``answer``, ``cited`` and ``refused`` as given.
    """
    source = (
        f"SELECT row_no, question_id, coalesce({_opt(responses, 'output')}, '') AS output, "
        f"{_opt(responses, 'answer')} AS answer, "
        f"coalesce({_opt(responses, 'cited')}, CAST([] AS VARCHAR[])) AS cited, "
        f"try_cast(nullif(trim({_opt(responses, 'refused')}), '') AS BOOLEAN) AS refused "
        f"FROM {responses.table} AS s"
    )
    if reader_format == "two_line":
        parsed = "parse_output(s.output)"
        fields = f"s.output, {parsed}.parse_ok AS parse_ok, {parsed}.answer AS answer, {parsed}.sources AS sources"
        numbers_of = "answer_numbers(p.answer, p.sources)"
    elif reader_format == "bracket":
        # each distinct marker, in order of first use, mapped to the chunk retrieved at that rank
        fields = (
            "s.output, TRUE AS parse_ok, trim(s.output) AS answer, coalesce(("
            "  SELECT array_agg(r.chunk_id ORDER BY m.first_at) FROM ("
            "    SELECT n, min(i) AS first_at FROM unnest(bracket_markers(s.output)) WITH ORDINALITY AS u(n, i) GROUP BY n"
            "  ) AS m JOIN retrievals AS r ON r.run_id = $run AND r.question_id = s.question_id "
            "AND CAST(r.rank AS VARCHAR) = m.n"
            "), CAST([] AS VARCHAR[])) AS sources"
        )
        numbers_of = "bracket_numbers(p.answer)"
    else:
        fields = "CASE WHEN s.output = '' THEN coalesce(s.answer, '') ELSE s.output END AS output, " \
                 "TRUE AS parse_ok, coalesce(s.answer, '') AS answer, s.cited AS sources"
        numbers_of = "native_answer_numbers(p.answer, p.sources)"  # cited ids are never empty here (validate)
    con.execute(
        f"""INSERT INTO responses BY NAME
        SELECT $run AS run_id, p.question_id, p.row_no AS ordinal, p.output, p.parse_ok, p.answer, p.sources,
               native_squad_tokens(coalesce(p.answer, '')) AS answer_tokens, {numbers_of} AS answer_numbers, p.refused
        FROM (SELECT s.row_no, s.question_id, s.refused, {fields} FROM ({source}) AS s) AS p""",
        params,
    )
    if reader_format == "bracket":
        con.execute(
            """INSERT INTO response_sentences BY NAME
            SELECT run_id, question_id, CAST(i AS INTEGER) AS sentence_no, x.sentence, x.markers, x.word_count, x.numbers
            FROM (SELECT r.run_id, r.question_id, u.x, u.i
                  FROM responses AS r, unnest(bracket_sentences(r.output)) WITH ORDINALITY AS u(x, i)
                  WHERE r.run_id = $run)""",
            params,
        )


def _write_grades(con: duckdb.DuckDBPyConnection, grades: Staged, params: dict[str, Any]) -> None:
    """Grades, grader and label trimmed and lower-cased so 'Human' and 'human ' are one grader."""
    con.execute(
        "INSERT INTO grades BY NAME SELECT $run AS run_id, s.item_id, lower(trim(s.grader)) AS grader, "
        f"lower(trim(s.label)) AS label, s.row_no AS ordinal FROM {grades.table} AS s",
        {"run": params["run"]},
    )


def write_run(
    con: duckdb.DuckDBPyConnection, run_id: str, staged: dict[str, Staged], settings: RunSettings, *,
    best_scores: bool = True,
) -> dict[str, int]:
    """Insert the staged rows as run ``run_id`` (inside the caller's transaction); with ``best_scores``, also
    each question's best overlap score into ``temp.rt_best``, for the metrics stored next.

    Every text is normalised here, once, by the UDFs; the views read the stored columns.
    """
    params = {"run": run_id, "tokenizer": settings.tokenizer}
    normalised = _write_chunks(con, staged["chunks"], params) if "chunks" in staged else 0
    if "claims" in staged:
        _write_claims(con, staged, {"run": run_id})
    if "questions" in staged:
        _write_questions(con, staged["questions"], params)
    # the overlap scores of every (question, chunk) sharing a term: the overlap retriever ranks them,
    # and the stored metrics read each question's best as question_best_score (_write). A load that
    # needs neither (another retriever or a retrievals file, and no stored metrics) computes none
    scored = "questions" in staged and "chunks" in staged
    overlap_retriever = scored and "retrievals" not in staged and settings.retriever == "overlap"
    if overlap_retriever:
        overlap_scores(con, run_id, settings.tokenizer, best=best_scores)
    _write_retrievals(con, staged, settings, {"run": run_id})
    if scored and best_scores and not overlap_retriever:  # after the retriever, whose memory is freed by then
        overlap_scores(con, run_id, settings.tokenizer, pairs=False)
    if scored:
        _write_sentence_norms(con, {"run": run_id})
    if "responses" in staged:
        _write_responses(con, staged["responses"], settings.format, {"run": run_id})
    if "grades" in staged:
        _write_grades(con, staged["grades"], {"run": run_id})
    counts = {
        name: scalar(con, f"SELECT count(*) FROM {table} WHERE run_id = ?", [run_id])
        for name, table in (("chunks", "chunk_refs"), ("claims", "claims"), ("citations", "citations"),
                            ("questions", "questions"), ("retrievals", "retrievals"), ("responses", "responses"),
                            ("grades", "grades"))
    }
    return {**counts, "normalised": normalised}


def source_path(directory: Path) -> str:
    """Where a run came from, as the report shows it: relative to the working directory when the
    folder is inside it (no runner's absolute path in a pull-request comment), else absolute."""
    folder, here = directory.resolve(), Path.cwd().resolve()
    return folder.relative_to(here).as_posix() if folder.is_relative_to(here) and folder != here else str(folder)


def load_run(
    db: Location,
    directory: Path,
    *,
    run: str | None = None,
    label: str | None = None,
    replace: bool = False,
    thresholds: Sequence[int] = DEFAULT_THRESHOLDS,
    score_thresholds: Sequence[float] = (),
    source: str | None = None,
    overrides: dict[str, Any] | None = None,
    allow_extra: bool = False,
    default_dataset: str | None = None,
    metrics: bool = True,
    invocation: Invocation = QUIET,
) -> LoadResult:
    """Validate every input file in ``directory``, then write it as one run of the warehouse at ``db``.

    ``overrides`` (dataset, created_at, retriever, top_k, tokenizer, abstain_marker, premise_marker) win over
    run.toml,
    which wins over ``default_dataset`` (else the folder's name);
    ``allow_extra`` ignores files and columns evalwh does not read instead of refusing them;
    ``score_thresholds`` are swept over the retrievers' own scores (``retrievals.score``, the view
    score_sweep) beside ``thresholds``, which are swept over the chapter's word-overlap count;
    ``metrics`` stores the run's headline metrics in metrics_history right after the run;
    ``invocation`` says how long to wait for a locked warehouse and whether to draw a progress bar.
    """
    run_id = check_run_name(run if run is not None else directory.resolve().name)
    if not thresholds:
        raise UsageError("at least one threshold is needed")
    for threshold in thresholds:  # a threshold is compared with a count of shared words
        if isinstance(threshold, bool) or not isinstance(threshold, int) or not 0 <= threshold <= MAX_THRESHOLD:
            raise UsageError(f"--thresholds: each threshold must be a whole number from 0 to {MAX_THRESHOLD:,}, "
                             f"not {threshold!r}")
    for score in score_thresholds:  # compared with retrievals.score, any finite number
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise UsageError(f"--score-thresholds: each threshold must be a finite number, not {score!r}")
    if not directory.is_dir():
        raise InputError(str(directory), "no such directory")
    settings = with_overrides(read_run_toml(directory), **(overrides or {}))
    con = new_connection()
    try:
        # the whole load under one memory limit, spilling past it: its peak is bounded by the limit, not the run
        limit_memory(con, invocation.memory_limit or LOAD_MEMORY_LIMIT)
        with progress(f"load {run_id}", len(SPECS) + 1, enabled=invocation.progress) as advance:
            staged = stage_directory(con, directory, settings, advance, allow_extra)
            # the native macros do the work; the Python text functions serve the two_line and bracket parsers
            # and the texts the macros leave to Python (a capital sigma)
            register_udfs(con)
            register_reader_udfs(con)
            register_native_macros(con)
            stopwords, stop_source = read_stopwords(directory, settings)
            advance(len(SPECS) - len(staged))
            params = {
                "thresholds": sorted(set(int(t) for t in thresholds)),
                "stopwords": stopwords,
                "stopwords_source": stop_source,
                **settings.params(),
                "retrieval_source": "file" if "retrievals" in staged else f"builtin:{settings.retriever}",
                # the sweep over retrievals.score (the view score_sweep), only when asked for
                **({"score_thresholds": sorted(set(float(t) for t in score_thresholds))} if score_thresholds else {}),
            }
            dataset = settings.dataset or default_dataset or directory.resolve().name
            stopwords_file = directory / "stopwords.txt"
            digest, manifest = input_digest(
                [staged[kind].path for kind in sorted(staged)] + ([stopwords_file] if stopwords_file.is_file() else []),
                {"params": params, "label": label, "dataset": dataset, "created_at": settings.created_at})
            counts = _write(con, db, run_id, staged, settings, params=params, label=label,
                            source=source or source_path(directory), replace=replace, dataset=dataset,
                            metrics=metrics, invocation=invocation, created_at=settings.created_at, digest=digest,
                            manifest=manifest)
            advance(1)
        if counts.pop("unchanged", 0):
            return LoadResult(run_id=run_id, replaced=False, unchanged=True, reader_format=settings.format)
        replaced = counts.pop("replaced") == 1
        unparsed = tuple(unparsed_responses(con, run_id))
        return LoadResult(run_id=run_id, replaced=replaced, normalised=counts.pop("normalised"), counts=counts,
                          unparsed=unparsed, reader_format=settings.format)
    finally:
        con.close()


def _write(
    con: duckdb.DuckDBPyConnection, db: Location, run_id: str, staged: dict[str, Staged], settings: RunSettings, *,
    params: dict[str, Any], label: str | None, source: str, replace: bool, dataset: str, metrics: bool,
    invocation: Invocation, created_at: dt.datetime | None = None, digest: str | None = None,
    manifest: dict[str, Any] | None = None,
) -> dict[str, int]:
    """Attach the warehouse and write the run in one transaction, then (when ``metrics``) its headline
    metrics in a second; counts rows, plus ``replaced``. A run of this id whose ``content_digest`` is
    ``digest`` is left as it is (``unchanged``), unless ``replace``."""
    attach_writer(con, db, invocation)
    # zstd writes text at about twice the speed of DuckDB's automatic choice, and compresses it well
    con.execute("SET force_compression = 'zstd'")
    migrate(con, db)

    def write() -> tuple[dict[str, int], dt.datetime | None, bool]:
        """The run's transaction: (counts, its created_at, whether it replaced a run); run again from the
        start when a concurrent writer of a lake committed first."""
        stored = con.execute("SELECT content_digest FROM runs WHERE run_id = ?", [run_id]).fetchall()
        exists = bool(stored)
        if exists and not replace:
            if digest is not None and stored[0][0] == digest:
                return {"unchanged": 1}, None, False  # a re-run of the same load: the run is already there
            raise UsageError(f"run {run_id!r} already exists with other input; pass --replace to swap it, or --run "
                             "to name a new one")
        if exists:
            for table in run_tables(con):
                con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])
        if created_at is not None:  # a backfill: the run takes its place among the others by this time
            taken = scalar(con, "SELECT min(run_id) FROM runs WHERE created_at = ?", [created_at])
            if taken is not None:
                raise UsageError(f"run {taken!r} has the same created_at ({created_at}); give another time, "
                                 "so that 'latest' and every baseline stay well defined")
            created = created_at
        else:
            created = moment_after(con, "SELECT max(created_at) FROM runs", [])
        con.execute(
            "INSERT INTO runs BY NAME SELECT ? AS run_id, ? AS created_at, ? AS label, ? AS source, ? AS params, "
            "? AS dataset, ? AS content_digest, ? AS manifest",
            [run_id, created, label, source, json.dumps(params), dataset, digest, json.dumps(manifest or {}, default=str)]
        )
        return write_run(con, run_id, staged, settings, best_scores=metrics), created, exists

    counts, created, exists = write_transaction(con, db, write, invocation)
    if "unchanged" in counts:
        return counts
    if metrics:
        # the staged input is written: its memory goes to the metrics, which spill past a cap, so the
        # load's peak is the run's write, not the metrics' (bench/claims.py, bench/tfidf.py)
        drop_temp_tables(con, keep=("rt_best",))
        # what the load computed, the views read instead of computing it again: a temp table named like a
        # view stands for it in this connection (tests/test_retrieval_fast.py: the same metrics as the views')
        if scalar(con, "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'temp' AND table_name = 'rt_best'"):
            con.execute("ALTER TABLE temp.rt_best RENAME TO question_best_score")
        # in a second transaction: inside the run's, the metrics would read the run from transaction-local
        # storage, slower and with the run held in memory.
        # The file stays attached, so no other process writes in between (a lake's writers may); a load stopped in between leaves
        # the run without stored metrics, which readers compute live (evalwh.history.metric_values) until
        # ``materialize`` stores them
        def store() -> None:
            if not metrics_stored(con, run_id):  # in a lake, a concurrent materialize may have stored them
                store_metrics(con, run_id, created or dt.datetime.now())

        write_transaction(con, db, store, invocation)
        con.execute("DROP TABLE IF EXISTS temp.question_best_score")
    return {**counts, "replaced": int(exists)}
