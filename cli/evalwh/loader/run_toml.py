"""A run's settings: ``run.toml`` in the run folder, overridden by flags of ``evalwh load``.

Exactly these keys are allowed; anything else is an input error naming the key,
so a typo never silently falls back to a default.

    [retrieval]  retriever = "overlap"|"tfidf", top_k = 3, tokenizer = "ascii"|"unicode", stopwords = [...]
    [run]        dataset = "name"   (the dataset the run belongs to; default: the folder's name),
                 created_at = 2026-12-01T09:00:00Z   (when the run was made, for a backfill; default: now)
    [reader]     abstain_marker = "NOT IN HANDBOOK", premise_marker = "PREMISE NOT SUPPORTED",
                 format = "two_line"|"bracket"|"structured", refusal_phrase = "That does not appear from the material."
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from evalwh.errors import InputError, UsageError

RETRIEVERS = ("overlap", "tfidf")
TOKENIZERS = ("ascii", "unicode")
READER_FORMATS = ("two_line", "bracket", "structured")
ALLOWED: dict[str, tuple[str, ...]] = {
    "run": ("dataset", "created_at"),
    "retrieval": ("retriever", "top_k", "tokenizer", "stopwords"),
    "reader": ("abstain_marker", "premise_marker", "format", "refusal_phrase"),
}


@dataclass(frozen=True)
class RunSettings:
    retriever: str = "overlap"
    top_k: int = 3
    tokenizer: str = "ascii"
    stopwords: tuple[str, ...] | None = None   # None: stopwords.txt, else the chapter's list
    abstain_marker: str = "NOT IN HANDBOOK"
    premise_marker: str = "PREMISE NOT SUPPORTED"
    format: str = "two_line"
    refusal_phrase: str = "That does not appear from the material."
    dataset: str | None = None  # None: the folder's name
    created_at: dt.datetime | None = None  # UTC, without a zone; None: the time of the load

    def params(self) -> dict[str, Any]:
        """The settings as stored in runs.params (the stop list and the dataset are stored separately)."""
        values = asdict(self)
        values.pop("stopwords")
        values.pop("dataset")
        values.pop("created_at")
        return values


def parse_created_at(value: object) -> dt.datetime:
    """An ISO 8601 date or date and time (a TOML date-time, or text) as a UTC time without a zone;
    a time without a zone is read as UTC. Anything else is a ValueError."""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value.strip())
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if not isinstance(value, dt.datetime):
        raise ValueError(f"not a date and time: {value!r}")
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value


# the largest top_k and refusal threshold a run may set: far beyond any real use, and within INTEGER
MAX_TOP_K = 100_000
MAX_THRESHOLD = 1_000_000


def _check(settings: RunSettings, where: str, from_file: bool) -> RunSettings:
    """Validate the values; a bad one is an InputError naming the file, or a UsageError for a flag."""
    def fail(key: str, message: str) -> Exception:
        return InputError(where, message, column=key) if from_file else UsageError(f"{key}: {message}")

    if settings.retriever not in RETRIEVERS:
        raise fail("retriever", f"unknown retriever {settings.retriever!r} (use {' or '.join(RETRIEVERS)})")
    if settings.tokenizer not in TOKENIZERS:
        raise fail("tokenizer", f"unknown tokenizer {settings.tokenizer!r} (use {' or '.join(TOKENIZERS)})")
    if (isinstance(settings.top_k, bool) or not isinstance(settings.top_k, int)
            or not 1 <= settings.top_k <= MAX_TOP_K):
        raise fail("top_k", f"top_k must be a whole number from 1 to {MAX_TOP_K:,}, not {settings.top_k!r}")
    if settings.format not in READER_FORMATS:
        raise fail("format", f"unknown reader format {settings.format!r} (use {', '.join(READER_FORMATS)})")
    for key in ("abstain_marker", "premise_marker", "refusal_phrase"):
        value = getattr(settings, key)
        if not isinstance(value, str) or not value:
            raise fail(key, f"{key} must be a non-empty string")
    if settings.stopwords is not None and not all(isinstance(w, str) for w in settings.stopwords):
        raise fail("stopwords", "stopwords must be a list of strings")
    if settings.dataset is not None and (not isinstance(settings.dataset, str) or not settings.dataset
                                         or settings.dataset.strip() != settings.dataset
                                         or any(ch in settings.dataset for ch in "\t\r\n")):
        raise fail("dataset", "dataset must be a non-empty name without surrounding spaces, tabs or newlines")
    if settings.created_at is not None:
        try:
            settings = replace(settings, created_at=parse_created_at(settings.created_at))
        except ValueError:
            raise fail("created_at", f"created_at must be an ISO 8601 date and time such as 2026-12-01T09:00:00Z, "
                                     f"not {settings.created_at!r}") from None
    return settings


def read_run_toml(directory: Path) -> RunSettings:
    """The settings in ``directory/run.toml``, or the defaults when there is none."""
    path = directory / "run.toml"
    if not path.is_file():
        return RunSettings()
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(path.name, "text is not valid UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path.name, f"not valid TOML: {exc}") from None
    values: dict[str, Any] = {}
    for table, body in document.items():
        if table not in ALLOWED or not isinstance(body, dict):
            raise InputError(path.name, f"unknown table [{table}] (allowed: {', '.join(ALLOWED)})")
        for key, value in body.items():
            if key not in ALLOWED[table]:
                raise InputError(path.name, f"unknown key {key!r} in [{table}] (allowed: {', '.join(ALLOWED[table])})")
            values[key] = tuple(value) if key == "stopwords" and isinstance(value, list) else value
    if "stopwords" in values and not isinstance(values["stopwords"], tuple):
        raise InputError(path.name, "stopwords must be a list of strings", column="stopwords")
    return _check(RunSettings(**values), path.name, from_file=True)


def flat_overrides(overrides: dict[str, Any]) -> dict[str, Any]:
    """Overrides given flat (``{"format": "bracket"}``) or in run.toml's shape (``{"reader": {"format":
    "bracket"}}``), as one flat dict; a key run.toml does not allow is a UsageError naming it."""
    keys = {key: table for table, names in ALLOWED.items() for key in names}
    flat: dict[str, Any] = {}
    for name, value in overrides.items():
        if name in ALLOWED and isinstance(value, dict):
            for key, inner in value.items():
                if key not in ALLOWED[name]:
                    raise UsageError(f"overrides: unknown key {key!r} in [{name}] (allowed: {', '.join(ALLOWED[name])})")
                flat[key] = inner
        elif name in keys:
            flat[name] = value
        else:
            raise UsageError(f"overrides: unknown key {name!r} (run.toml's tables: {', '.join(ALLOWED)}; keys: "
                             f"{', '.join(keys)})")
    return flat


def with_overrides(settings: RunSettings, **overrides: Any) -> RunSettings:
    """``settings`` with every override that is not None applied (flags of ``evalwh load``, or the
    library's ``overrides``, flat or in run.toml's shape)."""
    chosen = {k: v for k, v in flat_overrides(overrides).items() if v is not None}
    if "stopwords" in chosen and isinstance(chosen["stopwords"], list):
        chosen["stopwords"] = tuple(chosen["stopwords"])
    return _check(replace(settings, **chosen), "load", from_file=False) if chosen else settings
