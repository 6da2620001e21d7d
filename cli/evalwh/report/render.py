"""A run's report written out: HTML or Markdown from what ``evalwh.report.gather`` read, and the claim table beside it.

The warehouse is open only while the report's rows are read; rendering happens after. A Markdown
report is cut to fit GitHub's comment limit, saying so.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb

from evalwh.errors import UsageError
from evalwh.history.gates import Gates
from evalwh.history.materialize import claim_statuses_source
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Location
from evalwh.output.files import atomic_output
from evalwh.output.rowfiles import copy_query
from evalwh.output.rows import Format
from evalwh.output.templates import render
from evalwh.output.terminal import progress
from evalwh.report.gather import (
    DEFAULT_JUDGE_TOLERANCE,
    DEFAULT_MAX_ROWS,
    LEAVES_OPEN,
    Capped,
    Changes,
    ReportData,
    gather,
    gather_history,
)
from evalwh.vocabulary import FAILING_FIRST, STATUSES
from evalwh.warehouse.connection import limit_memory, open_warehouse

FORMATS = {"html": "report.html.j2", "md": "report.md.j2"}


def plain_ref(kind: str, value: object) -> object:
    """An id as the report shows it on its own: as text (a site links it to its page instead)."""
    return "—" if value is None else value


HISTORY_FORMATS = {"html": "history.html.j2", "md": "history.md.j2"}


def write_claims_csv(con: duckdb.DuckDBPyConnection, run_id: str, path: Path) -> None:
    """The full per-claim table of a run, failing claims first; a file for spreadsheets, so text that
    would run as a formula is prefixed with '."""
    source = claim_statuses_source(con, run_id)
    copy_query(
        con,
        f"SELECT s.claim_id, s.status, s.cited_ids, c.text, c.quote FROM {source} AS s "
        "JOIN claims AS c ON c.run_id = s.run_id AND c.claim_id = s.claim_id "
        f"WHERE s.run_id = ? ORDER BY {FAILING_FIRST}, s.ordinal",
        [run_id], Format.csv, path, safe_csv=True,
    )


# GitHub refuses a comment (and a step summary) longer than this many characters
MARKDOWN_LIMIT = 65_536


def _capped(data: ReportData, rows: int) -> ReportData:
    """The same report with every table cut to ``rows`` rows (the totals, and so the notes, unchanged)."""
    def cut(capped: Capped) -> Capped:
        return Capped(capped.rows[:rows], capped.total)

    trimmed = replace(data, claims=cut(data.claims), cases=cut(data.cases), changes=cut(data.changes))
    if data.worse is not None and data.better is not None:
        trimmed.worse = Changes(cut(data.worse.questions), cut(data.worse.claims))
        trimmed.better = Changes(cut(data.better.questions), cut(data.better.claims))
    if data.retrieve_read:
        trimmed.retrieve_read = {**data.retrieve_read, "questions": cut(data.retrieve_read["questions"])}
    if data.axes:
        trimmed.axes = {**data.axes, "cases": cut(data.axes["cases"]), "checks": cut(data.axes["checks"])}
    if data.production:
        trimmed.production = {**data.production, "problems": cut(data.production["problems"]),
                              "daily": data.production["daily"][:rows], "uncovered": data.production["uncovered"][:rows]}
    return trimmed


def _cut_note(data: ReportData, rows: int) -> str:
    return (f"*Tables are cut to {rows} rows to stay within GitHub's {MARKDOWN_LIMIT:,}-character comment "
            f"limit{'; the full claim table is in ' + data.claims_csv if data.claims_csv else ''}.*\n\n")


def within_comment_limit(text: str, data: ReportData, max_rows: int) -> str:
    """The Markdown report with its tables cut to the most rows (at most ``max_rows``) that fit GitHub's
    comment limit, saying so. The page grows with its rows, so the most that fit are found by
    bisection; a page counts as fitting only with room for the note, so a larger ``max_rows`` never
    gives fewer rows."""
    if len(text) + len(_cut_note(data, max_rows)) <= MARKDOWN_LIMIT:
        return text

    def cut_to(rows: int) -> str:
        body = render("md", FORMATS["md"], r=_capped(data, rows), statuses=STATUSES, leaves_open=LEAVES_OPEN,
                      ref=plain_ref, site=None)
        title, _, rest = body.partition("\n\n")
        return f"{title}\n\n{_cut_note(data, rows)}{rest}".rstrip("\n") + "\n"

    low, high = 1, max_rows - 1  # the answer is in [low, high]: max_rows itself did not fit
    best = cut_to(1)
    while low <= high:
        middle = (low + high) // 2
        candidate = cut_to(middle)
        if len(candidate) <= MARKDOWN_LIMIT:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


EXTENSIONS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", "": "html"}


def format_for(output: Path | None) -> str:
    """The report format an output file's extension asks for: md for .md and .markdown, html for .html,
    .htm, no extension and stdout; any other extension (``x.pdf``) is a UsageError, not an HTML file
    under that name."""
    if output is None:
        return "html"
    chosen = EXTENSIONS.get(output.suffix.lower())
    if chosen is None:
        raise UsageError(f"-o {output.name}: a report is HTML (.html, .htm) or Markdown (.md, .markdown); "
                         "name the file so, or give --format html|md to write it under this name")
    return chosen


def claims_csv_path(output: Path) -> Path:
    """Where the full claim table goes beside a report: ``report.html`` -> ``report.claims.csv``."""
    return output.with_name(output.stem + ".claims.csv")


def build_report(
    db: Location, run: str, fmt: str, output: Path | None, max_rows: int = DEFAULT_MAX_ROWS,
    judge_tolerance: float = DEFAULT_JUDGE_TOLERANCE, baseline: str | None = None,
    invocation: Invocation = QUIET, gates: Gates | None = None,
) -> str:
    """Render the report of ``run``, its verdict by ``gates`` (none: "no gates set"); with ``output``,
    write it and the claims CSV beside it.

    Returns the rendered text.
    """
    if fmt not in FORMATS:
        raise UsageError(f"unknown report format {fmt!r} (use {' or '.join(FORMATS)})")
    if max_rows < 1:
        raise UsageError("--max-rows must be at least 1")
    if not 0 <= judge_tolerance <= 1:
        raise UsageError("--judge-tolerance must be between 0 and 1")
    with progress("report", 3, enabled=invocation.progress) as advance:
        # the warehouse is open only while the report's rows are read; rendering happens after
        with open_warehouse(db, invocation=invocation, udfs=False) as con:
            limit_memory(con, invocation.memory_limit)  # a report computes many views of the run: past the cap, DuckDB spills
            data = gather(con, run, max_rows, judge_tolerance, baseline, gates)
            advance(1)
            if output is not None:
                csv_path = claims_csv_path(output)
                write_claims_csv(con, data.run["run_id"], csv_path)
                data.claims_csv = csv_path.name
        advance(1)
        text = render(fmt, FORMATS[fmt], r=data, statuses=STATUSES, leaves_open=LEAVES_OPEN, ref=plain_ref,
                      site=None).rstrip("\n") + "\n"
        if fmt == "md":
            text = within_comment_limit(text, data, max_rows)
        if output is not None:
            with atomic_output(output) as handle:
                handle.write(text)
        advance(1)
    return text


def build_history(db: Location, dataset: str, fmt: str, output: Path | None, invocation: Invocation = QUIET) -> str:
    """Render the history page of ``dataset``: every run with its headline metrics, and their trends."""
    if fmt not in HISTORY_FORMATS:
        raise UsageError(f"unknown report format {fmt!r} (use {' or '.join(HISTORY_FORMATS)})")
    with open_warehouse(db, invocation=invocation, udfs=False) as con:
        history = gather_history(con, dataset)
    text = render(fmt, HISTORY_FORMATS[fmt], h=history).rstrip("\n") + "\n"
    if output is not None:
        with atomic_output(output) as handle:
            handle.write(text)
    return text
