"""The log formats evalwh reads: how a file's format is told, and the SQL that turns its records into rows.

A format is a recipe of SELECTs in ``sql/logformats/`` over the temp table ``log_raw(file, line,
record JSON)``: preludes that each make a temp table the next ones read, then the SELECTs of its
requests, retrievals and citations. The trace formats (``otlp``, ``openinference``) differ only in
their containers: each lists its spans and their attributes in one shape (``trace_spans``,
``trace_attributes``), and the same ``trace_*.sql`` read both conventions (OpenInference's and the
OpenTelemetry GenAI conventions') from there. The same SQL runs on Spark (``evalwh.spark.logs``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files as package_files
from importlib.resources.abc import Traversable

from evalwh.vocabulary import LOG_FORMATS

FORMATS = LOG_FORMATS
PARTS: tuple[str, ...] = ("requests", "retrievals", "citations")
# the metadata keys a document's chunk id is looked for under, in order, where it has no id of its own
DEFAULT_ID_KEYS: tuple[str, ...] = ("id", "chunk_id", "doc_id", "document_id")


@dataclass(frozen=True)
class Recipe:
    """A format's SQL files: preludes (file, the temp table it makes), then one per part."""

    preludes: tuple[tuple[str, str], ...]
    requests: str
    retrievals: str
    citations: str
    provider_citations: str | None = None  # citations the provider returned, which win over [n] markers


def _trace_recipe(container: str) -> Recipe:
    return Recipe(
        preludes=((f"{container}_spans", "trace_spans"), (f"{container}_attributes", "trace_attributes"),
                  ("trace_fields", "trace_fields"), ("trace_messages", "trace_messages"),
                  ("trace_documents", "log_documents")),
        requests="trace_requests", retrievals="ranked_documents", citations="marker_citations",
        provider_citations="trace_provider_citations",
    )


RECIPES: dict[str, Recipe] = {
    "evalwh": Recipe((("evalwh_spans", "evalwh_spans"),), "evalwh_requests", "evalwh_retrievals", "evalwh_citations"),
    "anthropic": Recipe((("anthropic_exchanges", "anthropic_exchanges"), ("anthropic_spans", "anthropic_spans")),
                        "anthropic_requests", "anthropic_retrievals", "anthropic_citations"),
    "ragas": Recipe((("ragas_samples", "ragas_samples"),), "ragas_requests", "ragas_retrievals", "marker_citations"),
    "deepeval": Recipe((("deepeval_cases", "deepeval_cases"),), "deepeval_requests", "deepeval_retrievals",
                       "marker_citations"),
    "otlp": _trace_recipe("otlp"),
    "openinference": _trace_recipe("openinference"),
}


def format_file(name: str) -> Traversable:
    return package_files("evalwh.sql") / "logformats" / f"{name}.sql"


def _text(name: str) -> str:
    return format_file(name).read_text(encoding="utf-8")


def preludes(fmt: str) -> list[tuple[str, str]]:
    """(SELECT, temp table) of each of the format's preludes, in the order they run."""
    return [(_text(name), table) for name, table in RECIPES[fmt].preludes]


def prelude_tables(fmt: str) -> list[str]:
    return [table for _, table in RECIPES[fmt].preludes]


def format_sql(fmt: str, part: str) -> str:
    """The format's SELECT for ``part``. Where the format has provider citations, those win over the
    [n] markers of the same request."""
    recipe = RECIPES[fmt]
    sql = _text({"requests": recipe.requests, "retrievals": recipe.retrievals, "citations": recipe.citations}[part])
    if part != "citations" or recipe.provider_citations is None:
        return sql
    return (f"WITH provider AS ({_text(recipe.provider_citations)}), markers AS ({sql}) "
            "SELECT * FROM provider UNION ALL "
            "SELECT * FROM markers WHERE request_id NOT IN (SELECT request_id FROM provider)")


def checks_sql(fmt: str) -> str | None:
    """The format's JSON type checks (``<format>_checks.sql``), where it has them."""
    checks = format_file(f"{fmt}_checks")
    return checks.read_text(encoding="utf-8") if checks.is_file() else None


# Telling a file's format from the keys of its first record. Each rule: the format, and the sets of
# keys any one of which is enough; the first rule that matches wins (DeepEval before OpenInference:
# a golden's "context" is a list, a span's an object).
RULES: tuple[tuple[str, tuple[frozenset[str], ...]], ...] = (
    ("otlp", (frozenset({"resourceSpans"}), frozenset({"resourceLogs"}))),
    ("deepeval", (frozenset({"test_results"}), frozenset({"testRunData"}), frozenset({"testCases"}),
                  frozenset({"input", "actual_output"}), frozenset({"input", "expected_output"}),
                  frozenset({"input", "retrieval_context"}), frozenset({"input", "actualOutput"}))),
    ("ragas", (frozenset({"user_input"}), frozenset({"retrieved_contexts"}), frozenset({"contexts"}),
               frozenset({"ground_truth"}))),
    ("anthropic", (frozenset({"request", "response"}),)),
    ("openinference", (frozenset({"context.trace_id"}), frozenset({"span_kind"}), frozenset({"parent_id"}),
                       frozenset({"context", "attributes"}))),
    ("evalwh", (frozenset({"request_id"}),)),
)


def format_of_keys(keys: Iterable[str]) -> str | None:
    """The format a record with these top-level keys is in, or None."""
    present = set(keys)
    for fmt, alternatives in RULES:
        if any(alternative <= present for alternative in alternatives):
            return fmt
    return None


def looks_like(keys: Iterable[str] | None, shape: str, first_texts: Sequence[str]) -> str:
    """What a file that is in no log format looks like, as a phrase for the message: the format its
    first record is in, an OpenTelemetry metrics export, JSON objects with other keys, a JSON array
    or value, CSV (lines split alike by commas, semicolons or tabs), or text that is not JSON
    (console output). ``first_texts`` are its first lines that are no JSON object."""
    if keys is not None:
        listed = sorted(keys)
        if "resourceMetrics" in listed:
            return "an OpenTelemetry metrics export (no requests in it)"
        fmt = format_of_keys(listed)
        if fmt is not None:
            return f"{fmt} logs"
        shown = ", ".join(listed[:6]) + (", ..." if len(listed) > 6 else "")
        return f"JSON objects with the keys {shown}" if listed else "empty JSON objects"
    if shape == "csv":
        return "CSV with none of the columns a log format has"
    texts = [t.strip() for t in first_texts if t.strip()]
    text = texts[0] if texts else ""
    if text.startswith("["):
        return "a JSON array, not an object a line"
    if text[:1] in ('"', "-") or text[:1].isdigit() or text in ("true", "false", "null"):
        return "JSON values that are not objects"
    for delimiter in (",", ";", "\t"):
        counts = {t.count(delimiter) for t in texts[:2]}
        if len(texts) >= 2 and len(counts) == 1 and counts.pop() > 0:
            return "CSV or another delimited text (a .csv file is read as CSV)"
    return "text that is not JSON (console output?)"


def refused(text: str) -> str:
    """SQL for a log's refused flag from its text: the words DuckDB reads as a boolean, spelled out so
    that Spark (whose cast also trims spaces) reads the same ones."""
    return (f"CASE WHEN lower({text}) IN ('true', 't', 'yes', 'y', '1') THEN TRUE "
            f"WHEN lower({text}) IN ('false', 'f', 'no', 'n', '0') THEN FALSE END")
