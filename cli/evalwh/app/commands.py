"""The ``evalwh`` command: argument parsing only; each command calls one library function.

Rows go to stdout in the chosen format; messages and errors go to stderr as
``evalwh: ...``; the exit code comes from ``errors.exit_code_for``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from evalwh.app import version_line
from evalwh.app.argv import GlobalOptionsGroup
from evalwh.app.diagnostics import crash, handles_errors
from evalwh.app.options import (
    DEFAULT_DB,
    BaselineOption,
    CheckFormat,
    ConfigOption,
    Dialect,
    DiffFormat,
    ExportFormat,
    FormatOption,
    GlobalOptions,
    ListFormat,
    LogView,
    NoConfigOption,
    OutputOption,
    ReportFormat,
    RunOption,
    global_options,
    to_file,
)
from evalwh.errors import ExitCode, UsageError
from evalwh.location import Location, as_location
from evalwh.output.files import atomic_output, write_lines
from evalwh.output.rows import Format, Rows
from evalwh.vocabulary import LATEST, LOG_FORMATS
from evalwh.vocabulary import REPORT_JUDGE_TOLERANCE as DEFAULT_JUDGE_TOLERANCE
from evalwh.vocabulary import REPORT_MAX_ROWS as DEFAULT_MAX_ROWS

# The library is imported inside each command, when it runs: `evalwh --help` and a command's help
# load neither DuckDB nor the loader, the logs or the report code (bench/startup.py measures it).
if TYPE_CHECKING:
    import duckdb

    from evalwh.loader.load import LoadResult

app = typer.Typer(
    name="evalwh",
    help="An evaluation warehouse for grounded RAG answers: load runs into DuckDB, "
    "score every claim and question with SQL views, and print or write the results.\n\n"
    "Example: evalwh load runs/today && evalwh report -o out/report.html && evalwh check --min supported_share=0.9",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    cls=GlobalOptionsGroup,
    rich_markup_mode=None,  # help as Click writes it, plain text: Rich's panels would double a --help's start-up
)

def db_path(ctx: typer.Context) -> Location:
    """The warehouse chosen by the global --db option (and --data-path, for a lake)."""
    return global_options(ctx).db


# ctx.meta key: in-memory connections that reads left behind, their warehouse detached, for emit_rows
SCRATCH = "evalwh.scratch"


@contextmanager
def reading(ctx: typer.Context) -> Iterator[duckdb.DuckDBPyConnection]:
    """The warehouse of this command line, open read-only (waiting --wait seconds for a writer's lock).
    Once the block is done the warehouse is released; its connection stays open for ``emit_rows``
    until the command ends."""
    from evalwh.warehouse.connection import open_warehouse

    options = global_options(ctx)
    if SCRATCH not in ctx.meta:  # the first read of the command: what reads keep is closed when it ends
        kept: list[duckdb.DuckDBPyConnection] = []
        ctx.meta[SCRATCH] = kept
        ctx.call_on_close(lambda: _close_all(kept))
    with open_warehouse(options.db, invocation=options.invocation, udfs=False, keep=ctx.meta[SCRATCH]) as con:
        yield con


def _close_all(connections: list[duckdb.DuckDBPyConnection]) -> None:
    for con in connections:
        con.close()


def note(ctx: typer.Context, message: str) -> None:
    """A message for the person at the terminal; none with --quiet."""
    global_options(ctx).note(message)


def emit_rows(ctx: typer.Context, rows: Rows, fmt: Format, output: Path | None) -> None:
    """Write rows to stdout or, atomically, to a file: the one writer of every row command."""
    output = to_file(output)
    if fmt is Format.table:
        from evalwh.output.terminal import TABLE_ROWS, write_table

        if output is None:
            left_out = write_table(rows, sys.stdout)
        else:
            with atomic_output(output) as handle:
                left_out = write_table(rows, handle)
        if left_out:  # a table is for reading; past this, a program wants csv or json
            note(ctx, f"the table shows {TABLE_ROWS:,} of {len(rows.rows):,} rows; -f csv, tsv, json or parquet "
                      "prints them all")
    elif fmt is Format.parquet and output is None and sys.stdout.isatty():
        raise UsageError("parquet is binary: give -o FILE, or pipe stdout into a file or program")
    else:
        from evalwh.output.rowfiles import write_copy  # numpy, only when a file is written

        kept = ctx.meta.get(SCRATCH)
        write_copy(rows, fmt, None, output, safe_csv=global_options(ctx).safe_csv, con=kept[-1] if kept else None)
    if output is not None:
        note(ctx, f"wrote {len(rows.rows)} rows to {output}")


def write_text(ctx: typer.Context, text: str, output: Path | None) -> None:
    """Write a rendered text (Markdown) to stdout or, atomically, to the file -o names."""
    output = to_file(output)
    if output is None:
        sys.stdout.write(text)
        return
    with atomic_output(output) as handle:
        handle.write(text)
    note(ctx, f"wrote {output}")


def version_callback(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    db: Annotated[
        str,
        typer.Option("--db", envvar="EVALWH_DB", show_default=True,
                     help="The warehouse: a DuckDB file, or a DuckLake (ducklake:postgres:dbname=… host=…, "
                     "ducklake:sqlite:FILE, ducklake:FILE.ducklake) a team shares."),
    ] = str(DEFAULT_DB),
    data_path: Annotated[
        Optional[str],
        typer.Option("--data-path", envvar="EVALWH_DATA_PATH", metavar="DIR|URL",
                     help="Where a new lake keeps its Parquet files (the lake remembers it)."),
    ] = None,
    wait: Annotated[
        float,
        typer.Option("--wait", envvar="EVALWH_WAIT", min=0, metavar="SECONDS",
                     help="How long to wait for a warehouse another process is writing (0: fail at once)."),
    ] = 30.0,
    safe_csv: Annotated[
        bool,
        typer.Option("--safe-csv", envvar="EVALWH_SAFE_CSV",
                     help="In -f csv output, prefix text cells starting with =, +, -, @ with ' so a spreadsheet "
                          "shows them instead of running them as formulas (numbers are never changed)."),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", envvar="EVALWH_QUIET",
                           help="No messages and no progress bars on stderr; errors are still printed."),
    ] = False,
    memory_limit: Annotated[
        Optional[str], typer.Option("--memory-limit", envvar="EVALWH_MEMORY_LIMIT", metavar="SIZE",
                                    help="DuckDB's memory for a load, a log import, or the views report, site, export, diff and "
                                    "check compute (500MB, 2GB); past it, it spills to temporary files (default: "
                                    "1GB for a load, 1200MB for an import, 700MB for report, site and export, "
                                    "DuckDB's own for diff and check).")
    ] = None,
    version: Annotated[
        Optional[bool], typer.Option("--version", callback=version_callback, is_eager=True, help="Show the version.")
    ] = None,
) -> None:
    """Global options (each may also come after the command)."""
    source = ctx.get_parameter_source("data_path")
    ctx.obj = GlobalOptions(warehouse=db, data_path=data_path,
                            data_path_from_env=source is not None and source.name == "ENVIRONMENT", wait=wait, safe_csv=safe_csv, quiet=quiet,
                            memory_limit=memory_limit)


WHOLE = re.compile(r"[0-9]+")


def parse_thresholds(text: str) -> list[int]:
    """``1,2,3`` -> [1, 2, 3]: ASCII whole numbers only (int() would also take 1_0 and other scripts'
    digits); anything else is a usage error."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not all(WHOLE.fullmatch(part) for part in parts):
        raise UsageError(f"--thresholds takes whole numbers separated by commas, not {text!r}")
    if not parts:
        raise UsageError("--thresholds needs at least one number")
    return [int(part) for part in parts]


def parse_score_thresholds(text: str | None) -> list[float]:
    """``0.25,0.5`` -> [0.25, 0.5]: plain ASCII decimals; none given -> no score sweep."""
    if text is None:
        return []
    from evalwh.history.check import PLAIN_NUMBER

    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(PLAIN_NUMBER.fullmatch(part) for part in parts):
        raise UsageError(f"--score-thresholds takes plain decimal numbers separated by commas (0.25,0.5), "
                         f"not {text!r}")
    return [float(part) for part in parts]


def report_load(ctx: typer.Context, result: LoadResult) -> None:
    if result.unchanged:
        note(ctx, f"run {result.run_id!r} already loaded from identical input; nothing written")
        return
    counts = ", ".join(f"{n} {table}" for table, n in result.counts.items())
    verb = "replaced" if result.replaced else "loaded"
    note(ctx, f"{verb} run {result.run_id!r}: {counts}; {result.normalised} chunk texts normalised")
    if result.unparsed:  # loaded as parse failures (action parse_failure), but a whole run of them is a wrong format
        note(ctx, f"{len(result.unparsed)} of {result.counts.get('responses', 0)} responses do not parse as "
                  f"{result.reader_format}: first {result.unparsed[0]} (set [reader] format in run.toml if they "
                  "are in another format)")


@app.command()
@handles_errors
def init(
    ctx: typer.Context,
    example: Annotated[
        Optional[Path], typer.Option("--example", metavar="DIR", file_okay=False,
                                     help="Also write a small annotated run folder to DIR, to edit into your own "
                                     "(with a JSON Schema of each file).")
    ] = None,
) -> None:
    """Create the warehouse file, or upgrade an older one to this release's schema and views.

    A file stored in a newer DuckDB format than the oldest one evalwh promises is rewritten in that format.

    Example: evalwh --db nightly.duckdb init

    Example: evalwh init --example eval-data && evalwh load eval-data
    """
    if example is not None:
        from evalwh.loader.example import write_example

        written = write_example(example)
        note(ctx, f"wrote an example run to {example} ({len(written)} files; see its README.md)")
    from evalwh.warehouse import storage
    from evalwh.warehouse.connection import STORAGE_VERSION

    path = db_path(ctx)
    if storage.initialise(path, global_options(ctx).invocation):
        note(ctx, f"rewrote {path} in DuckDB's {STORAGE_VERSION} storage format")
    note(ctx, f"warehouse ready at {path}")


@app.command()
@handles_errors
def load(
    ctx: typer.Context,
    directory: Annotated[
        Path,
        typer.Argument(
            metavar="DIR|FILE",
            help="Folder with chunks and claims and/or questions (each .csv, .tsv, .jsonl or .parquet), "
            "optional citations and stopwords.txt; or one RAGAS or DeepEval dataset file (any of their writers).",
        ),
    ],
    run: Annotated[Optional[str], typer.Option("--run", "-r", help="Run id (default: the folder's name, or the "
                                               "file's name without its suffixes).")] = None,
    label: Annotated[Optional[str], typer.Option("--label", help="Free text kept with the run.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Swap an existing run of the same id.")] = False,
    dataset: Annotated[
        Optional[str], typer.Option("--dataset", help="The dataset the run belongs to; reports, diffs and gates "
                                    "compare it with the previous run of this dataset (default: run.toml's "
                                    "[run] dataset, else the folder's name).")
    ] = None,
    created_at: Annotated[
        Optional[str], typer.Option("--created-at", metavar="TIME",
                                    help="When the run was made, ISO 8601 (2026-12-01T09:00:00Z; no zone: UTC), "
                                    "for a backfill: 'latest' and every baseline follow this time (default: "
                                    "run.toml's [run] created_at, else now).")
    ] = None,
    thresholds: Annotated[
        str, typer.Option("--thresholds", help="Refusal thresholds to sweep over the best chunk's word-overlap "
                          "score (the chapter's count of shared content words), whole numbers, comma-separated "
                          "(threshold_sweep; retrievals.score is not used by it).")
    ] = "1,2,3,4,5",
    score_thresholds: Annotated[
        Optional[str], typer.Option("--score-thresholds", metavar="X,Y",
                                    help="Refusal thresholds to sweep over the best retrievals.score of each "
                                    "question (your retriever's scores), decimals, comma-separated "
                                    "(score_sweep; default: no such sweep).")
    ] = None,
    retriever: Annotated[
        Optional[str], typer.Option("--retriever", help="Built-in retriever: overlap or tfidf (overrides run.toml).")
    ] = None,
    top_k: Annotated[Optional[int], typer.Option("--top-k", help="Chunks retrieved per question (overrides run.toml).")] = None,
    tokenizer: Annotated[
        Optional[str], typer.Option("--tokenizer", help="ascii or unicode (overrides run.toml).")
    ] = None,
    abstain_marker: Annotated[
        Optional[str], typer.Option("--abstain-marker", help="Answer prefix meaning a refusal (overrides run.toml).")
    ] = None,
    premise_marker: Annotated[
        Optional[str], typer.Option("--premise-marker", help="Answer prefix flagging a false premise (overrides run.toml).")
    ] = None,
    allow_extra: Annotated[
        bool, typer.Option("--allow-extra", help="Ignore files and columns evalwh does not read instead of "
                           "refusing them (claims.json, a misspelt column).")
    ] = False,
    metrics: Annotated[
        bool, typer.Option("--metrics/--no-metrics", help="Compute the run's headline metrics once and store them "
                           "in metrics_history, so reports and check read them (--no-metrics: computed when "
                           "read, or stored by materialize).")
    ] = True,
) -> None:
    """Validate a run folder, or an evaluation dataset file, and load it as one run, all or nothing.

    Files: chunks (required), claims, citations, questions, retrievals, responses (.csv, .tsv, .jsonl or
    .parquet), stopwords.txt and run.toml. A RAGAS EvaluationDataset export or DeepEval goldens or
    test results (one file) load as a run of chunks, questions, retrievals and responses.

    Example: evalwh load runs/2026-12-04 --dataset hr-policy --label "reranker v2"

    Example: evalwh load runs/2026-11-27 --dataset hr-policy --created-at 2026-11-27T18:00:00Z

    Example: evalwh load ragas_eval.jsonl --dataset hr-policy
    """
    overrides = {"dataset": dataset, "created_at": created_at, "retriever": retriever, "top_k": top_k, "tokenizer": tokenizer,
                 "abstain_marker": abstain_marker, "premise_marker": premise_marker}
    invocation = global_options(ctx).invocation
    if directory.is_file():
        from evalwh.loader.datasets import load_dataset_file

        if allow_extra or score_thresholds is not None:
            raise UsageError("--allow-extra and --score-thresholds are for run folders, not dataset files")
        result = load_dataset_file(db_path(ctx), directory, run=run, label=label, replace=replace,
                                   thresholds=parse_thresholds(thresholds), overrides=overrides, metrics=metrics,
                                   invocation=invocation)
    else:
        from evalwh.loader.load import load_run

        result = load_run(
            db_path(ctx), directory, run=run, label=label, replace=replace, thresholds=parse_thresholds(thresholds),
            score_thresholds=parse_score_thresholds(score_thresholds), overrides=overrides, allow_extra=allow_extra,
            metrics=metrics, invocation=invocation,
        )
    report_load(ctx, result)


@app.command()
@handles_errors
def seed(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Bundled dataset to load.")] = "chapter3",
    run: Annotated[Optional[str], typer.Option("--run", "-r", help="Run id (default: the dataset's name).")] = None,
    label: Annotated[Optional[str], typer.Option("--label", help="Free text kept with the run.")] = None,
    replace: Annotated[bool, typer.Option("--replace", help="Swap an existing run of the same id.")] = False,
) -> None:
    """Load a bundled dataset as a run.

    Example: evalwh seed handbook --replace
    """
    from evalwh.loader.load import load_run
    from evalwh.resources import seed_dir, seed_names

    folder = seed_dir(name)
    if folder is None:
        raise UsageError(f"no bundled dataset {name!r} (available: {', '.join(seed_names())})")
    result = load_run(
        db_path(ctx), Path(str(folder)), run=run or name, label=label, replace=replace, source=f"seed:{name}",
        default_dataset=name, invocation=global_options(ctx).invocation,
    )
    report_load(ctx, result)


@app.command()
@handles_errors
def materialize(
    ctx: typer.Context,
    full_refresh: Annotated[
        bool, typer.Option("--full-refresh", help="Rebuild the history of every run, not only new runs.")
    ] = False,
    rescore: Annotated[
        bool, typer.Option("--rescore", help="Compute again every stored row another release or other rules "
                           "computed, and print each value that changed (run_id, kind, item, stored, now, "
                           "computed_by).")
    ] = False,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
) -> None:
    """Copy into the history tables what they lack: runs' claim statuses, and headline metrics not stored at load.

    Example: evalwh materialize --rescore -f csv
    """
    from evalwh.history.materialize import materialize as materialize_history

    result = materialize_history(db_path(ctx), full_refresh=full_refresh, rescore=rescore,
                                 invocation=global_options(ctx).invocation)
    if result.runs:
        note(ctx, f"materialised {len(result.runs)} run(s): {', '.join(result.runs)}")
    elif not result.rescored_runs:
        note(ctx, "nothing to materialise: every run is already in history")
    if rescore:
        note(ctx, f"rescored {len(result.rescored_runs)} run(s) stored by another release or rules; "
                  f"{len(result.rescored)} value(s) changed")
        emit_rows(ctx, Rows(("run_id", "kind", "item", "stored", "now", "computed_by"),
                            [(c.run_id, c.kind, c.item, c.stored, c.now, c.computed_by) for c in result.rescored]),
                  fmt, output)


@app.command()
@handles_errors
def runs(
    ctx: typer.Context,
    dataset: Annotated[Optional[str], typer.Option("--dataset", help="Only the runs of this dataset.")] = None,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
) -> None:
    """List the runs, oldest first, with their dataset and headline metrics.

    Example: evalwh runs --dataset hr-policy -f csv
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.runs(con, dataset)
    emit_rows(ctx, rows, fmt, output)


@app.command()
@handles_errors
def status(ctx: typer.Context, run: RunOption = LATEST, fmt: FormatOption = Format.table,
           output: OutputOption = None) -> None:
    """Each claim's status (UNCITED, DANGLING, UNSUPPORTED, NUMBER_MISMATCH or SUPPORTED), its cited ids, text and quote.

    Example: evalwh status -r nightly -f json | jq '.[] | select(.status != "SUPPORTED")'
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.claim_status(con, run)
    emit_rows(ctx, rows, fmt, output)


@app.command()
@handles_errors
def metrics(ctx: typer.Context, run: RunOption = LATEST, fmt: FormatOption = Format.table,
           output: OutputOption = None) -> None:
    """The run's metrics, one row each: claims per status, supported_share (citation recall), pair_precision
    (citation precision), best_correct, recall_at_k, action_accuracy, mean_em, mean_f1, held_for_review.

    A metric that does not apply to the run (no claims, no gold chunks, no responses) is empty.

    Example: evalwh metrics -r latest -f csv
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.metrics(con, run)
    emit_rows(ctx, rows, fmt, output)


@app.command()
@handles_errors
def sweep(ctx: typer.Context, run: RunOption = LATEST, fmt: FormatOption = Format.table,
           output: OutputOption = None,
           scores: Annotated[bool, typer.Option("--scores", help="Sweep retrievals.score (score_sweep) instead "
                                                "of the word-overlap count.")] = False) -> None:
    """Correct refusal decisions per threshold, with the questions each threshold gets wrong.

    The default sweeps the chapter's signal, the best chunk's word-overlap score (threshold_sweep,
    load --thresholds); --scores sweeps the best retrievals.score instead (score_sweep, load
    --score-thresholds).

    Example: evalwh sweep -f table

    Example: evalwh sweep --scores
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.sweep(con, run, scores=True) if scores else queries.sweep(con, run)
    emit_rows(ctx, rows, fmt, output)


@app.command()
@handles_errors
def scores(ctx: typer.Context, run: RunOption = LATEST, fmt: FormatOption = Format.table,
           output: OutputOption = None) -> None:
    """Retrieval, citation and refusal scored apart for each case (hit/MISS, ok/BAD, ok/WRONG).

    The table format ends with the totals (k/n per axis); csv, json and tsv print the cases only
    (the totals are in the case_score_summary view and in `evalwh metrics`).

    Example: evalwh scores -r handbook
    """
    from evalwh import queries

    with reading(ctx) as con:
        per_case, totals = queries.case_scores(con, run)
    emit_rows(ctx, per_case, fmt, output)
    if fmt is Format.table and to_file(output) is None and totals.rows:
        total = totals.dicts()[0]
        sys.stdout.write(f"retrieval {total['retrieval']}  citation {total['citation']}  refusal {total['refusal']}\n")


@app.command()
@handles_errors
def cases(
    ctx: typer.Context,
    run: RunOption = LATEST,
    output: OutputOption = None,
    fmt: Annotated[
        Format, typer.Option("--format", "-f", help="Output format; tsv is the chapter's cases.tsv (no header).")
    ] = Format.tsv,
) -> None:
    """The test cases: question id, expected behaviour, first supporting chunk id or 'none'.

    Example: evalwh cases -o cases.tsv
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.cases(con, run)
    emit_rows(ctx, rows, fmt, output)


@app.command()
@handles_errors
def evidence(ctx: typer.Context, run: RunOption = LATEST, output: OutputOption = None) -> None:
    """The chapter's evidence file: key: value lines for claims, thresholds and cases.

    Example: evalwh evidence -o evidence.txt
    """
    with reading(ctx) as con:
        from evalwh.report.evidence import evidence_lines

        lines = evidence_lines(con, run)
    output = to_file(output)
    if output is None:
        write_lines(lines, sys.stdout)
    else:
        with atomic_output(output) as handle:
            write_lines(lines, handle)
        note(ctx, f"wrote {len(lines)} lines to {output}")


@app.command()
@handles_errors
def diff(
    ctx: typer.Context,
    runs: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="[RUN_A] [RUN_B]", help="Two runs: from RUN_A to RUN_B. One run: from its baseline to it. "
                       "None: from the latest run's baseline to it."),
    ] = None,
    baseline: BaselineOption = None,
    fmt: Annotated[DiffFormat, typer.Option("--format", "-f", help="Output format.")] = DiffFormat.table,
    output: OutputOption = None,
    across_datasets: Annotated[
        bool, typer.Option("--across-datasets", help="Compare two runs of different datasets (refused otherwise: "
                           "their questions and claims are not the same ones).")
    ] = False,
) -> None:
    """Metric deltas from one run to another, then the questions and claims that changed, worst first.

    Rows are kind (metric, question or claim), name, a, b, delta, change (better, worse, same, new or
    removed: the rules of the views question_changes and claim_changes), detail (every column that got
    worse or better), severity (how bad a worse row is, higher first) and reason (one line). A
    question's a and b are its outcome, its delta the change in F1; a claim's are its status. Worse rows
    come most severe first. A run without a baseline prints no rows and says so on stderr (exit 0).

    Example: evalwh diff -f md >> "$GITHUB_STEP_SUMMARY"
    """
    from evalwh.history import compare
    from evalwh.warehouse.runs import rules_note

    rules = None
    with reading(ctx) as con:
        before, after = compare.diff_pair(con, runs or [], baseline, across_datasets=across_datasets)
        if before is None:
            a, b, rows = None, after, Rows(compare.DIFF_COLUMNS, [])
        else:
            a, b, rows = compare.diff_runs(con, before, after, global_options(ctx).memory_limit,
                                           across_datasets=across_datasets)
            rules = rules_note(con, before, after)
    if rules is not None:
        note(ctx, rules)
    if a is None:
        note(ctx, f"run {b!r} has no earlier run in its dataset to compare with; nothing to diff "
                    "(pass --baseline RUN)")
        if fmt is DiffFormat.md:
            write_text(ctx, f"## evalwh diff: {b}\n\n*No earlier run of its dataset to compare with.*\n", output)
        else:
            emit_rows(ctx, rows, Format(fmt.value), output)
    elif fmt is DiffFormat.md:
        write_text(ctx, compare.diff_markdown(a, b, rows, rules), output)
    else:
        emit_rows(ctx, rows, Format(fmt.value), output)


@app.command("check")
@handles_errors
def check_command(
    ctx: typer.Context,
    run: RunOption = LATEST,
    minimum: Annotated[
        Optional[list[str]], typer.Option("--min", metavar="METRIC=X", help="Fail when METRIC is below X.")
    ] = None,
    maximum: Annotated[
        Optional[list[str]], typer.Option("--max", metavar="METRIC=X", help="Fail when METRIC is above X.")
    ] = None,
    max_drop: Annotated[
        Optional[list[str]],
        typer.Option("--max-drop", metavar="METRIC=X",
                     help="Fail when METRIC fell by more than X since the baseline (a metric new in this run passes)."),
    ] = None,
    max_regressions: Annotated[
        Optional[list[str]],
        typer.Option("--max-regressions", metavar="questions|claims=N",
                     help="Fail when more than N questions (or claims) got worse since the baseline "
                          "(question_changes, claim_changes)."),
    ] = None,
    require_baseline: Annotated[
        bool, typer.Option("--require-baseline", help="Fail when the run has no baseline to compare with "
                           "(default: drops and regressions then pass).")
    ] = False,
    baseline: BaselineOption = None,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    fmt: Annotated[CheckFormat, typer.Option("--format", "-f", help="Output format: text (the first few "
                                             "regressions named), json or md (all named), or junit (JUnit XML for "
                                             "CI test reports).")] = CheckFormat.text,
    output: OutputOption = None,
) -> None:
    """Gate CI on a run's metrics: exit 0 when every condition holds, 1 when one fails, 2 when one is malformed.

    Each --max-regressions condition names the questions (claims) it counted, most severe first, each
    with its one-line reason (question_changes, claim_changes: severity and reason).

    Conditions come from the [check] table of evalwh.toml (or --config FILE) and from the flags; a
    flag replaces the file's condition of the same kind on the same metric. Metrics are those of
    `evalwh metrics` and run_metrics_long, e.g. supported_share, pair_precision, DANGLING (the count
    of dangling claims), best_correct. Without a baseline, --max-drop and --max-regressions hold and
    a note says so on stderr; --require-baseline makes that a failure.

    Example: evalwh check --min supported_share=0.9 --max DANGLING=0 --max-drop pair_precision=0.05

    Example: evalwh check --require-baseline --max-regressions questions=0 --max-regressions claims=0

    Example: evalwh check --max-regressions questions=0 -f junit -o results.xml
    """
    from evalwh.history import check, gates

    flags = [check.parse_condition("min", c) for c in minimum or []]
    flags += [check.parse_condition("max", c) for c in maximum or []]
    flags += [check.parse_condition("max-drop", c) for c in max_drop or []]
    flags += [check.parse_condition("max-regressions", c) for c in max_regressions or []]
    chosen = gates.load_gates(config, flags, require_baseline, use_config=not no_config)
    conditions = chosen.conditions
    result = check.run_check(db_path(ctx), run, conditions, baseline, global_options(ctx).invocation,
                             require_baseline=chosen.require_baseline)
    if result.previous_run is None and any(c.kind in ("max-drop", "max-regressions") for c in conditions):
        note(ctx, f"run {result.run_id} has no baseline: no earlier run of its dataset, so nothing could drop "
                  "(--require-baseline makes this a failure)")
    writer = {CheckFormat.text: check.format_text, CheckFormat.json: check.format_json, CheckFormat.md: check.format_md,
              CheckFormat.junit: check.format_junit}
    write_text(ctx, writer[fmt](result), output)
    if not result.ok:
        typer.echo(f"evalwh: check failed: {len(result.failed)} of {check.conditions(len(result.outcomes))}", err=True)
        raise typer.Exit(int(ExitCode.CHECK_FAILED))


@app.command("report")
@handles_errors
def report_command(
    ctx: typer.Context,
    run: RunOption = LATEST,
    fmt: Annotated[
        Optional[ReportFormat],
        typer.Option("--format", "-f", help="html (self-contained, offline) or md; default: from the -o file's "
                     "extension (.md, .markdown: md; .html, .htm or none: html; another is refused)."),
    ] = None,
    output: OutputOption = None,
    max_rows: Annotated[
        int, typer.Option("--max-rows", help="Longest table in the report; the full claim table goes beside it as CSV.")
    ] = DEFAULT_MAX_ROWS,
    judge_tolerance: Annotated[
        float, typer.Option("--judge-tolerance", help="Flag a judge whose disagreement rate with the hand grades exceeds this.")
    ] = DEFAULT_JUDGE_TOLERANCE,
    baseline: BaselineOption = None,
    dataset: Annotated[
        Optional[str], typer.Option("--dataset", help="Render this dataset's history page instead: every run "
                                    "with its headline metrics, and a trend chart per metric.")
    ] = None,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    """Render a run's report: the gates' verdict, what got worse and better, then every metric and case.

    After the verdict and the changes since the baseline come the metrics, claim statuses, threshold
    sweep, questions and cases.

    The verdict is PASS or FAIL by the [check] table of evalwh.toml (or --config FILE), or "no gates
    set".

    With -o, the full per-claim table is written beside the report as <name>.claims.csv.

    Example: evalwh report -o out/report.html
    """
    from evalwh.history import gates
    from evalwh.report import render as report

    output = to_file(output)
    chosen = fmt.value if fmt is not None else report.format_for(output)
    if dataset is not None:
        text = report.build_history(db_path(ctx), dataset, chosen, output, global_options(ctx).invocation)
        if output is None:
            sys.stdout.write(text)
        else:
            note(ctx, f"wrote {output}")
        return
    text = report.build_report(db_path(ctx), run, chosen, output, max_rows, judge_tolerance, baseline,
                               global_options(ctx).invocation,
                               gates=gates.load_gates(config, use_config=not no_config))
    if output is None:
        sys.stdout.write(text)
    else:
        note(ctx, f"wrote {output} and {report.claims_csv_path(output)}")


@app.command("site")
@handles_errors
def site_command(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(help="A new (or empty) folder to write the site into.", file_okay=False)],
    max_rows: Annotated[
        int, typer.Option("--max-rows", help="Longest table on a page; claims get a page when a table lists them.")
    ] = DEFAULT_MAX_ROWS,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    """Write a static, linked site of the warehouse, for browsing offline or from a CI artifact.

    DIR/index.html lists every dataset and its runs; each run has its report with every id a link,
    a page per question (text, expected behaviour, retrieved chunks with ranks and scores, the
    answer, its claims, the three axes), per listed claim and per linked chunk, and a comparison
    with its baseline. The verdict on each run comes from evalwh.toml's [check] table.

    Example: evalwh site out/site && open out/site/index.html
    """
    from evalwh.history import gates
    from evalwh.report import site

    counts = site.build_site(db_path(ctx), directory, max_rows=max_rows,
                             gates=gates.load_gates(config, use_config=not no_config),
                             invocation=global_options(ctx).invocation)
    note(ctx, f"wrote {directory / 'index.html'}: {counts['runs']} runs, {counts['questions']} question, "
              f"{counts['claims']} claim and {counts['chunks']} chunk pages, {counts['comparisons']} comparison pages")


@app.command("views")
@handles_errors
def views_command(
    dialect: Annotated[Dialect, typer.Option("--dialect", help="duckdb (as the warehouse runs them) or spark "
                                             "(transpiled by sqlglot; needs evalwh[spark]).")] = Dialect.duckdb,
    schema: Annotated[bool, typer.Option("--schema", help="The base tables' DDL instead (spark only).")] = False,
) -> None:
    """Print the DDL of every view in dependency order, each statement followed by a line holding only ';'.

    Needs no warehouse. With --dialect spark each view is CREATE OR REPLACE TEMPORARY VIEW.

    Example: evalwh views --dialect spark > views.sql
    """
    from evalwh.warehouse import views

    if schema and dialect is not Dialect.spark:
        raise UsageError("--schema prints Spark's base tables; add --dialect spark")
    if dialect is Dialect.duckdb:
        statements = [statement for _, statement in views.view_statements()]
    else:
        from evalwh.spark import ddl  # sqlglot, from the spark extra

        statements = ddl.spark_schema() if schema else ddl.view_statements()
    sys.stdout.write(views.render(statements))


@app.command("export")
@handles_errors
def export_command(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(help="A new (or empty) folder to write.", file_okay=False)],
    file_format: Annotated[ExportFormat, typer.Option("--file-format", help="File format of every table and view.")]
    = ExportFormat.parquet,
    run: Annotated[Optional[str], typer.Option("--run", "-r", help="Only this run's rows (default: every run).")]
    = None,
    fmt: Annotated[
        Optional[ListFormat], typer.Option("--format", "-f", help="How the list of what was written is printed "
                                           "(default: table on a terminal, else csv).")
    ] = None,
    output: OutputOption = None,
    include: Annotated[
        Optional[list[str]], typer.Option("--include", metavar="VIEW", help="Also write this question x chunk score "
                                          "view (question_chunk_scores, retriever_scores, tfidf_scores, tfidf_units), "
                                          "left out by default; repeat for more.")
    ] = None,
    all_views: Annotated[bool, typer.Option("--all", help="Write the question x chunk score views too.")] = False,
) -> None:
    """Write every base table (Hive-partitioned by run) and every view to DIR, with DuckDB's COPY.

    Prints one row per table and view: name, kind, rows, path (relative to DIR). A run's files are
    in DIR/<table>/run=<id>/ and hold their run_id as text: pandas.read_parquet(DIR/claims) and
    polars.read_parquet(DIR/claims) read them as they are (the folder name adds a column run). The
    views scoring every question against every chunk are written only with --include or --all.

    Example: evalwh export warehouse-parquet/ -r nightly

    Example: evalwh export out/ --file-format csv -f json > exported.json
    """
    from evalwh import export

    source = ctx.get_parameter_source("file_format")
    if fmt is ListFormat.csv and source is not None and source.name == "DEFAULT":  # its old meaning was the files
        note(ctx, "export --format sets how the list of written files is printed; the files' own format is "
                  "--file-format (parquet)")
    exported = export.export_warehouse(db_path(ctx), directory, file_format.value, run, global_options(ctx).invocation,
                                       include=include or (), all_views=all_views)
    left_out = [name for name in export.MATRICES if not all_views and name not in (include or ())]
    if left_out:
        note(ctx, f"left out the question x chunk score views ({', '.join(left_out)}); --include VIEW or --all writes them")
    chosen = fmt.value if fmt is not None else ("table" if sys.stdout.isatty() and to_file(output) is None else "csv")
    emit_rows(ctx, export.exported_rows(exported), Format(chosen), output)
    note(ctx, f"wrote {len(exported)} tables and views to {directory}")


@app.command("copy")
@handles_errors
def copy_command(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(metavar="SRC", help="The warehouse to copy: a file or ducklake:….")],
    target: Annotated[str, typer.Argument(metavar="DST", help="The warehouse to add it to, created if need be "
                                          "(a new lake's Parquet files go under --data-path).")],
) -> None:
    """Add every run, log batch, history row and baseline of SRC to DST, whole or not at all.

    A file into a team's lake, a lake back into a file, or a file into a file. A run id or log batch id
    DST already holds is refused before anything is written; --db is not used.

    Example: evalwh copy evalwh.duckdb 'ducklake:postgres:dbname=evals host=db' --data-path s3://evals/lake
    """
    from evalwh.warehouse.copying import copy_warehouse

    options = global_options(ctx)
    result = copy_warehouse(source, target, data_path=options.data_path, invocation=options.invocation)
    note(ctx, f"copied {len(result.runs)} run(s), {result.log_batches} log batch(es), {result.history_rows} history "
              f"row(s) and {result.baseline_settings} baseline setting(s) into {as_location(target)}")


@app.command()
@handles_errors
def sql(
    ctx: typer.Context,
    statement: Annotated[str, typer.Argument(help="One SELECT (or DESCRIBE, SHOW, SUMMARIZE, PIVOT, EXPLAIN).")],
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
) -> None:
    """Run one read-only query against the warehouse and print its rows.

    The file is opened read-only and only one query (or EXPLAIN of one) is accepted: it cannot read, write or list files, attach or detach databases, install or load extensions, or change settings.

    Example: evalwh sql "SELECT status, count(*) FROM claim_status GROUP BY ALL" -f csv
    """  # noqa: E501
    import duckdb

    from evalwh import queries

    with reading(ctx) as con:
        try:
            rows = queries.read_only_query(con, statement)
        except duckdb.Error as exc:
            raise UsageError(str(exc).splitlines()[0]) from None
    emit_rows(ctx, rows, fmt, output)


def command_group(name: str, help_text: str) -> typer.Typer:
    """A group of subcommands (``evalwh NAME COMMAND``) whose bare name prints its help."""
    group = typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(group, name=name)
    return group


logs_app = command_group("logs", "Production logs: import them, then join them with a run in the log_* views.\n\n"
                                 "Example: evalwh logs import day.jsonl.gz && evalwh logs show health")


@logs_app.command("import")
@handles_errors
def logs_import(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Log files: JSON lines, one JSON document or array, CSV or "
                                                      "Parquet; JSON and CSV may be gzip-compressed (day.jsonl.gz).",
                                                dir_okay=False)],
    log_format: Annotated[
        Optional[str],
        typer.Option("--log-format", "-l", metavar="FORMAT",
                     help=f"One of {', '.join(LOG_FORMATS)}; told from each file's first record if omitted "
                          "(every file of an import is in one format)."),
    ] = None,
    skip_bad: Annotated[
        bool, typer.Option("--skip-bad", help="Set malformed records aside in log_rejects instead of failing the "
                           "batch (a file none of whose records is in the format still fails it).")
    ] = False,
    id_keys: Annotated[
        Optional[str], typer.Option("--id-keys", metavar="KEY,KEY",
                                    help="Metadata keys a retrieved document's chunk id is read from, in order, "
                                    "when the document has no id (default: id,chunk_id,doc_id,document_id).")
    ] = None,
    old_format: Annotated[Optional[str], typer.Option("--format", "-f", hidden=True)] = None,
) -> None:
    """Append log files as one batch; requests already imported (same source and id) are skipped.

    A trace whose spans arrive without their root span waits in log_pending and is completed by the
    import that brings its root.

    Example: evalwh logs import logs/2026-12-0*.jsonl.gz --log-format otlp

    Example: evalwh logs import phoenix-spans.parquet --id-keys chunk_id,source_id
    """
    from evalwh.logs.importing import import_logs

    if old_format is not None:  # -f means the output format in every other command
        if log_format is not None:
            raise UsageError("give --log-format alone (--format is its old spelling)")
        note(ctx, "logs import --format is now --log-format; the old spelling will go")
        log_format = old_format
    keys = None if id_keys is None else [key.strip() for key in id_keys.split(",")]
    result = import_logs(db_path(ctx), paths, log_format, skip_bad, global_options(ctx).invocation, id_keys=keys)
    if result.unjoined:
        note(ctx, f"{len(result.unjoined)} trace(s) imported earlier got more spans here, which cannot join them: "
                  f"first {result.unjoined[0]} (import the spans of a trace before or with its root span)")
    if result.log_batch_id is None:
        note(ctx, f"nothing new ({result.source}): {result.skipped} requests already present; no batch recorded")
        return
    note(ctx, f"imported batch {result.log_batch_id} ({result.source}): {result.requests} new requests, "
         f"{result.skipped} already present, {result.retrievals} retrievals, {result.citations} citations, "
         f"{result.rejects} rejected")
    if result.completed:
        note(ctx, f"{result.completed} trace(s) kept pending by an earlier import are complete now")
    if result.pending:
        note(ctx, f"{result.pending} trace(s) have spans but no root span yet: kept in log_pending until an import "
                  "brings the root")


@logs_app.command("show")
@handles_errors
def logs_show(
    ctx: typer.Context,
    view: Annotated[LogView, typer.Argument(help="health (log_citation_health), replay (log_refusal_replay), "
                                                 "coverage (log_chunk_coverage) or daily (log_daily).")],
    run: RunOption = LATEST,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
) -> None:
    """Production logs joined with a run: the run picks the chunk store and the thresholds.

    Example: evalwh logs show health -f csv -o health.csv
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.log_view(con, view.value, run)
    emit_rows(ctx, rows, fmt, output)


@logs_app.command("batches")
@handles_errors
def logs_batches(ctx: typer.Context, fmt: FormatOption = Format.table,
           output: OutputOption = None) -> None:
    """List the imported log batches, oldest first.

    Example: evalwh logs batches -f json
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.query(con, "SELECT * FROM log_batches ORDER BY loaded_at, log_batch_id")
    emit_rows(ctx, rows, fmt, output)


baseline_app = command_group("baseline", "A dataset's blessed baseline: the run report, diff, check and site "
                                         "compare its runs with, set on purpose (else each run's previous run).\n\n"
                                         "Example: evalwh baseline set latest --note 'release 2.3'")


@baseline_app.command("set")
@handles_errors
def baseline_set(
    ctx: typer.Context,
    run: Annotated[str, typer.Argument(metavar="RUN", help="The run to bless (a run id or 'latest').")],
    note_text: Annotated[Optional[str], typer.Option("--note", help="Why this run (kept with it).")] = None,
) -> None:
    """Bless RUN as its dataset's baseline: the dataset's other runs are compared with it.

    Example: evalwh baseline set nightly-2026-12-07 --note "approved for release 2.3"
    """
    from evalwh.warehouse.baselines import set_baseline

    change = set_baseline(db_path(ctx), run, note_text, global_options(ctx).invocation)
    if change.before == change.after:
        note(ctx, f"{change.after} is already the baseline of dataset {change.dataset}; nothing written")
    else:
        was = f" (was {change.before})" if change.before else " (was: each run's previous run)"
        note(ctx, f"baseline of dataset {change.dataset}: {change.after}{was}")


@baseline_app.command("show")
@handles_errors
def baseline_show(
    ctx: typer.Context,
    dataset: Annotated[Optional[str], typer.Option("--dataset", help="Only this dataset's baseline.")] = None,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
) -> None:
    """List the blessed baselines: dataset, run_id, set_at, note (a dataset without one is not listed).

    Example: evalwh baseline show -f json
    """
    from evalwh import queries

    with reading(ctx) as con:
        rows = queries.baselines(con, dataset)
    emit_rows(ctx, rows, fmt, output)


@baseline_app.command("clear")
@handles_errors
def baseline_clear(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(metavar="DATASET", help="The dataset whose baseline to clear.")],
) -> None:
    """Clear DATASET's blessed baseline: each of its runs is compared with its previous run again.

    Example: evalwh baseline clear hr-policy
    """
    from evalwh.warehouse.baselines import clear_baseline

    change = clear_baseline(db_path(ctx), dataset, global_options(ctx).invocation)
    if change.before is None:
        note(ctx, f"dataset {dataset} has no blessed baseline; nothing written")
    else:
        note(ctx, f"baseline of dataset {dataset} cleared (was {change.before}): each run is compared with its "
                  "previous run")


def main() -> None:
    """Console-script entry point: what escapes every command's handler (a bug) is one line and exit 70."""
    try:
        app()
    except Exception as exc:
        sys.exit(int(crash(exc)))
