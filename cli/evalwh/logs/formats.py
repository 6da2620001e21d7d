"""The log formats evalwh reads: how one is detected, and the SQL that turns its records into rows.

Each format is three SELECTs in ``sql/logformats/<format>_{requests,retrievals,citations}.sql`` over
the temp table ``log_raw(file, line, record JSON)``; a format without its own retrievals or citations
shares the generic ones. The same SQL runs on Spark (``evalwh.spark.logs``).
"""

from __future__ import annotations

from importlib.resources import files as package_files
from importlib.resources.abc import Traversable

import duckdb

from evalwh.errors import InputError
from evalwh.vocabulary import LOG_FORMATS

FORMATS = LOG_FORMATS


PARTS: tuple[str, ...] = ("requests", "retrievals", "citations")


def format_file(name: str) -> Traversable:
    return package_files("evalwh.sql") / "logformats" / f"{name}.sql"


def format_sql(fmt: str, part: str) -> str:
    """The format's SELECT for ``part``.

    A format without its own retrievals ranks the documents its spans list (ranked_documents.sql).
    A format without its own citations cites by [n] markers in its answers; where it also has
    provider citations (``<format>_provider_citations.sql``), those win for their requests.
    """
    own = format_file(f"{fmt}_{part}")
    if own.is_file() or part == "requests":
        return own.read_text(encoding="utf-8")
    if part == "retrievals":
        return format_file("ranked_documents").read_text(encoding="utf-8")
    markers = format_file("marker_citations").read_text(encoding="utf-8")
    provider = format_file(f"{fmt}_provider_citations")
    if not provider.is_file():
        return markers
    return (f"WITH provider AS ({provider.read_text(encoding='utf-8')}), markers AS ({markers}) "
            "SELECT * FROM provider UNION ALL "
            "SELECT * FROM markers WHERE request_id NOT IN (SELECT request_id FROM provider)")


def detect_format(con: duckdb.DuckDBPyConnection) -> str:
    """Tell the format from the keys of the first record."""
    # arg_min keeps one record as it goes; ORDER BY ... LIMIT 1 carried every record through a sort
    row = con.execute("SELECT json_keys(arg_min(record, (file, line))) FROM log_raw WHERE record IS NOT NULL").fetchone()
    keys = set(row[0]) if row and row[0] is not None else set()
    if "resourceSpans" in keys:
        return "otlp"
    if {"user_input", "retrieved_contexts"} & keys or {"contexts", "ground_truth"} & keys:
        return "ragas"
    if "response" in keys and "request" in keys:
        return "anthropic"
    if {"context", "span_kind", "parent_id"} & keys or "attributes" in keys:
        return "openinference"
    if "request_id" in keys:
        return "evalwh"
    first = con.execute("SELECT file FROM log_lines ORDER BY file, line LIMIT 1").fetchone()
    raise InputError(first[0] if first else "logs", "cannot tell the log format from its first record; "
                     f"pass --format ({', '.join(FORMATS)})")


def refused(text: str) -> str:
    """SQL for a log's refused flag from its text: the words DuckDB reads as a boolean, spelled out so
    that Spark (whose cast also trims spaces) reads the same ones."""
    return (f"CASE WHEN lower({text}) IN ('true', 't', 'yes', 'y', '1') THEN TRUE "
            f"WHEN lower({text}) IN ('false', 'f', 'no', 'n', '0') THEN FALSE END")
