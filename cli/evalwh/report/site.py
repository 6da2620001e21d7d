"""A static site of the warehouse: an index of datasets and runs, and a linked page per run, question,
claim, chunk and comparison, for browsing from a CI artifact with no server.

Layout of DIR::

    index.html                          every dataset with its runs (and their trends from three runs)
    runs/<run>/index.html               the run's report, every id a link
    runs/<run>/compare.html             the run against its baseline: metrics, questions, claims
    runs/<run>/questions/<id>.html      text, expected behaviour, retrieved chunks, answer, claims, axes,
                                        and the baseline's side (answer, action, EM/F1, axes) with the change
    runs/<run>/claims/<id>.html         text, quote, status, cited chunks, its question, and its status in
                                        the baseline with the change
    runs/<run>/chunks/<id>.html         text, the questions that retrieved it, the claims that cite it

Every question of a run gets a page; claims get one when the run page or the comparison lists them
(failing first, up to ``max_rows``), and chunks when a page links to them, so a run of a million
claims still writes a few hundred pages. File names are the ids where they are plain (letters,
digits, ``.``, ``_``, ``-``), else a readable part and a hash, so any id gives one safe name.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
from markupsafe import Markup, escape

from evalwh.errors import UsageError
from evalwh.history.compare import diff_runs
from evalwh.history.gates import Gates
from evalwh.history.materialize import claim_statuses_source
from evalwh.history.pairs import pair_changes
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Location
from evalwh.output.templates import render
from evalwh.report.gather import DEFAULT_MAX_ROWS, LEAVES_OPEN, ReportData, gather, gather_history
from evalwh.vocabulary import STATUSES
from evalwh.warehouse.connection import dicts, limit_memory, open_warehouse
from evalwh.warehouse.runs import baseline_run

PLAIN_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}")


def page_name(value: str) -> str:
    """A file name for an id: the id itself when plain, else its plain characters and a hash."""
    if PLAIN_ID.fullmatch(value):
        return f"{value}.html"
    plain = re.sub(r"[^A-Za-z0-9_-]+", "-", value).strip("-")[:40] or "id"
    return f"{plain}-{hashlib.sha256(value.encode('utf-8')).hexdigest()[:12]}.html"


@dataclass
class RunPages:
    """Which pages one run has, and the link from a page ``depth`` folders below the run's folder."""

    run_id: str
    questions: set[str] = field(default_factory=set)
    claims: set[str] = field(default_factory=set)
    chunks: set[str] = field(default_factory=set)

    def href(self, kind: str, value: str, depth: int) -> str | None:
        pages = {"question": self.questions, "claim": self.claims, "chunk": self.chunks}[kind]
        if value not in pages:
            return None
        return "../" * depth + f"{kind}s/{page_name(value)}"


def run_folder(run_id: str) -> str:
    return f"runs/{page_name(run_id).removesuffix('.html')}"


def linker(pages: RunPages, depth: int) -> Callable[[str, Any], Markup]:
    """The ``ref(kind, id)`` templates call: an id as a link to its page, or as text when it has none."""
    def ref(kind: str, value: Any) -> Markup:
        if value is None:
            return Markup("—")
        href = pages.href(kind, str(value), depth)
        text = escape(str(value))
        return Markup(f'<a href="{escape(href)}">{text}</a>') if href else Markup(text)
    return ref



def question_pages(con: duckdb.DuckDBPyConnection, run_id: str, statuses: str) -> list[dict[str, Any]]:
    """Every question of the run with what its page shows (``statuses``: the table of its claim statuses)."""
    questions = dicts(con, """
        SELECT q.question_id, q.question, q.expected, q.gold, q.gold_chunk_id, o.answer, o.action, o.sources,
               u.outcome, a.exact_match, a.f1, s.retrieval, s.citation, s.refusal, s.expected_chunk
        FROM questions AS q
        LEFT JOIN reader_outputs AS o ON o.run_id = q.run_id AND o.question_id = q.question_id
        LEFT JOIN question_outcomes AS u ON u.run_id = q.run_id AND u.question_id = q.question_id
        LEFT JOIN answer_scores AS a ON a.run_id = q.run_id AND a.question_id = q.question_id
        LEFT JOIN case_scores AS s ON s.run_id = q.run_id AND s.question_id = q.question_id
        WHERE q.run_id = ? ORDER BY q.ordinal""", [run_id])
    retrieved = dicts(con, """
        SELECT r.question_id, r.rank, r.score, r.chunk_id, c.text, c.chunk_id IS NOT NULL AS chunk_exists
        FROM retrievals AS r LEFT JOIN chunks AS c ON c.run_id = r.run_id AND c.chunk_id = r.chunk_id
        WHERE r.run_id = ? ORDER BY r.question_id, r.rank""", [run_id])
    claims = dicts(con, f"""
        SELECT c.question_id, c.claim_id, c.text, c.quote, s.status
        FROM claims AS c JOIN {statuses} AS s ON s.run_id = c.run_id AND s.claim_id = c.claim_id
        WHERE c.run_id = ? AND c.question_id IS NOT NULL ORDER BY c.ordinal""", [run_id])
    by_question: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in retrieved:
        by_question.setdefault(row["question_id"], {"retrieved": [], "claims": []})["retrieved"].append(row)
    for row in claims:
        by_question.setdefault(row["question_id"], {"retrieved": [], "claims": []})["claims"].append(row)
    for q in questions:
        q.update(by_question.get(q["question_id"], {"retrieved": [], "claims": []}))
    return questions


def claim_pages(
    con: duckdb.DuckDBPyConnection, run_id: str, statuses: str, claim_ids: Iterable[str]
) -> list[dict[str, Any]]:
    """The claims named, with their status (from ``statuses``), quote and cited chunks."""
    wanted = sorted(set(claim_ids))
    if not wanted:
        return []
    claims = dicts(con, f"""
        SELECT c.claim_id, c.text, c.quote, c.question_id, s.status
        FROM claims AS c JOIN {statuses} AS s ON s.run_id = c.run_id AND s.claim_id = c.claim_id
        WHERE c.run_id = ? AND c.claim_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY c.ordinal""", [run_id, wanted])
    pairs = dicts(con, """
        SELECT p.claim_id, p.ordinal, p.chunk_id, p.chunk_exists, p.quote_found, ch.text
        FROM citation_pairs AS p LEFT JOIN chunks AS ch ON ch.run_id = p.run_id AND ch.chunk_id = p.chunk_id
        WHERE p.run_id = ? AND p.claim_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY p.claim_id, p.ordinal""",
                   [run_id, wanted])
    cited: dict[str, list[dict[str, Any]]] = {}
    for pair in pairs:
        cited.setdefault(pair["claim_id"], []).append(pair)
    for claim in claims:
        claim["citations"] = cited.get(claim["claim_id"], [])
    return claims


def chunk_pages(
    con: duckdb.DuckDBPyConnection, run_id: str, statuses: str, chunk_ids: Iterable[str]
) -> list[dict[str, Any]]:
    """The chunks named that exist in the run, with the questions that retrieved them and the claims that cite
    them (their statuses from ``statuses``)."""
    wanted = sorted(set(chunk_ids))
    if not wanted:
        return []
    chunks = dicts(con, "SELECT chunk_id, doc_id, text FROM chunks WHERE run_id = ? "
                         "AND chunk_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY ordinal", [run_id, wanted])
    retrieved = dicts(con, "SELECT chunk_id, question_id, rank, score FROM retrievals WHERE run_id = ? "
                            "AND chunk_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY question_id, rank", [run_id, wanted])
    citing = dicts(con, "SELECT p.chunk_id, p.claim_id, s.status FROM citation_pairs AS p "
                         f"JOIN {statuses} AS s ON s.run_id = p.run_id AND s.claim_id = p.claim_id "
                         "WHERE p.run_id = ? AND p.chunk_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY p.claim_id",
                    [run_id, wanted])
    by_chunk: dict[str, dict[str, list[dict[str, Any]]]] = {c["chunk_id"]: {"retrieved": [], "citing": []}
                                                             for c in chunks}
    for key, found in (("retrieved", retrieved), ("citing", citing)):
        for row in found:
            if row["chunk_id"] in by_chunk:
                by_chunk[row["chunk_id"]][key].append(row)
    for chunk in chunks:
        chunk.update(by_chunk[chunk["chunk_id"]])
    return chunks


@dataclass
class RunSite:
    """What one run's pages are built from."""

    report: ReportData
    questions: list[dict[str, Any]]
    claims: list[dict[str, Any]]
    chunks: list[dict[str, Any]]
    comparison: list[dict[str, Any]] | None
    pages: RunPages


def listed_claims(report: ReportData, comparison: list[dict[str, Any]] | None) -> set[str]:
    """The claims the run page and the comparison page list."""
    ids = {c["claim_id"] for c in report.claims.rows}
    for changes in (report.worse, report.better):
        if changes is not None:
            ids |= {c["claim_id"] for c in changes.claims.rows}
    ids |= {r["name"] for r in comparison or [] if r["kind"] == "claim"}
    return ids


# what a question's and a claim's page show of the baseline beside the run (question_changes, claim_changes)
BASELINE_QUESTIONS = """
    SELECT question_id, old_answer, old_action, old_outcome, old_exact_match, old_f1, old_retrieval_ok,
           old_citation_ok, old_refusal_ok, change, worse_in, better_in, severity, reason
    FROM {changes} WHERE baseline_run_id = $a AND run_id = $b"""
BASELINE_CLAIMS = """
    SELECT claim_id, old_status, change, severity, reason
    FROM {changes} WHERE baseline_run_id = $a AND run_id = $b"""


def baseline_sides(con: duckdb.DuckDBPyConnection, baseline: str, run_id: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Question id -> its baseline side and change, and claim id -> the same, for the pages of ``run_id``."""
    sides: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, view, sql, key in (("questions", "question_changes", BASELINE_QUESTIONS, "question_id"),
                                 ("claims", "claim_changes", BASELINE_CLAIMS, "claim_id")):
        with pair_changes(con, view, baseline, run_id) as changes:
            rows = dicts(con, sql.replace("{changes}", changes), {"a": baseline, "b": run_id})
        sides[kind] = {row[key]: row for row in rows}
    return sides


def gather_run(con: duckdb.DuckDBPyConnection, run_id: str, max_rows: int, gates: Gates | None) -> RunSite:
    report = gather(con, run_id, max_rows, gates=gates)
    comparison = None
    sides: dict[str, dict[str, dict[str, Any]]] = {"questions": {}, "claims": {}}
    if report.previous is not None:
        comparison = diff_runs(con, report.previous, run_id)[2].dicts()
        sides = baseline_sides(con, report.previous, run_id)
    # the claim statuses from history, or from the live view once per connection, as the report read them
    statuses = claim_statuses_source(con, run_id)
    questions = question_pages(con, run_id, statuses)
    claims = claim_pages(con, run_id, statuses, listed_claims(report, comparison))
    for q in questions:
        q["baseline"] = sides["questions"].get(q["question_id"])
    for c in claims:
        c["baseline"] = sides["claims"].get(c["claim_id"])
    chunk_ids = {r["chunk_id"] for q in questions for r in q["retrieved"]}
    chunk_ids |= {q["gold_chunk_id"] for q in questions if q["gold_chunk_id"]}
    chunk_ids |= {p["chunk_id"] for c in claims for p in c["citations"]}
    chunk_ids |= {p["chunk_id"] for c in report.claims.rows for p in c.get("citations", [])}
    chunks = chunk_pages(con, run_id, statuses, chunk_ids)
    pages = RunPages(run_id, {q["question_id"] for q in questions}, {c["claim_id"] for c in claims},
                     {c["chunk_id"] for c in chunks})
    return RunSite(report, questions, claims, chunks, comparison, pages)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def write_run(root: Path, site: RunSite) -> None:
    """Every page of one run under ``root/runs/<run>/``."""
    folder = root / run_folder(site.pages.run_id)
    report = site.report
    baseline_href = f"../{page_name(report.previous).removesuffix('.html')}/index.html" if report.previous else None
    common = {"statuses": STATUSES, "leaves_open": LEAVES_OPEN}
    _write(folder / "index.html", render("html", "report.html.j2", r=report, ref=linker(site.pages, 0),
                                         site={"home": "../../index.html", "baseline": baseline_href,
                                               "compare": "compare.html" if report.previous else None},
                                         **common))
    nav = {"home": "../../../index.html", "run": "../index.html", "run_id": site.pages.run_id}
    side = {"baseline": report.previous, "baseline_href": f"../{baseline_href}" if baseline_href else None,
            "compare": "../compare.html" if report.previous else None}
    for q in site.questions:
        _write(folder / "questions" / page_name(q["question_id"]),
               render("html", "site/question.html.j2", q=q, nav=nav, ref=linker(site.pages, 1), side=side))
    for c in site.claims:
        _write(folder / "claims" / page_name(c["claim_id"]),
               render("html", "site/claim.html.j2", c=c, nav=nav, ref=linker(site.pages, 1), side=side))
    for k in site.chunks:
        _write(folder / "chunks" / page_name(k["chunk_id"]),
               render("html", "site/chunk.html.j2", k=k, nav=nav, ref=linker(site.pages, 1)))
    if site.comparison is not None:
        _write(folder / "compare.html",
               render("html", "site/compare.html.j2", rows=site.comparison, a=report.previous, b=site.pages.run_id,
                      nav={"home": "../../index.html", "run": "index.html", "run_id": site.pages.run_id,
                           "baseline": baseline_href}, ref=linker(site.pages, 0)))


def build_site(db: Location, directory: Path, *, max_rows: int = DEFAULT_MAX_ROWS, gates: Gates | None = None,
               invocation: Invocation = QUIET) -> dict[str, int]:
    """Write the site of every run of the warehouse at ``db`` into ``directory`` (new or empty),
    whole or not at all; returns how many pages of each kind it wrote."""
    if max_rows < 1:
        raise UsageError("--max-rows must be at least 1")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UsageError(f"{directory}: not an empty folder (the site is written into a new or empty one)")
    counts = {"runs": 0, "questions": 0, "claims": 0, "chunks": 0, "comparisons": 0}
    directory.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".evalwh-site-", dir=directory.parent))
    try:
        with open_warehouse(db, invocation=invocation, udfs=False) as con:
            limit_memory(con, invocation.memory_limit)
            datasets = [r[0] for r in con.execute("SELECT DISTINCT dataset FROM runs ORDER BY 1").fetchall()]
            histories = [gather_history(con, d) for d in datasets]
            for history in histories:
                for run in history.runs:
                    run["folder"] = run_folder(run["run_id"])
                    previous = baseline_run(con, run["run_id"], None)
                    run["baseline"] = previous
                    run["baseline_folder"] = run_folder(previous) if previous else None
                    site = gather_run(con, run["run_id"], max_rows, gates)
                    run["worse"] = site.report.worse.total if site.report.worse else None
                    run["verdict"] = site.report.verdict
                    write_run(scratch, site)
                    counts["runs"] += 1
                    counts["questions"] += len(site.questions)
                    counts["claims"] += len(site.claims)
                    counts["chunks"] += len(site.chunks)
                    counts["comparisons"] += site.comparison is not None
        _write(scratch / "index.html", render("html", "site/index.html.j2", histories=histories))
        if directory.exists():
            directory.rmdir()
        scratch.rename(directory)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch)
    return counts
