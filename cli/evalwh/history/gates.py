"""Gates kept in a project file: the ``[check]`` table of ``evalwh.toml``, read by ``check`` and ``report``.

A team writes its conditions once, beside its data, instead of in every CI step::

    [check]
    require_baseline = true
    min = { supported_share = 0.8 }
    max = { DANGLING = 0 }
    max_drop = { pair_precision = 0.05 }
    max_regressions = { questions = 0, claims = 0 }

A flag given on the command line replaces the file's condition of the same kind on the same
metric (``--min supported_share=0.9`` wins over ``min.supported_share``); the file's other
conditions still apply. ``--require-baseline`` turns the requirement on; the file can too.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from evalwh.errors import UsageError, closest
from evalwh.history.check import REGRESSIONS, Condition

CONFIG_NAME = "evalwh.toml"
# the [check] keys that hold conditions, and the condition kind each gives
KINDS = {"min": "min", "max": "max", "max_drop": "max-drop", "max_regressions": "max-regressions"}
KEYS = (*KINDS, "require_baseline")


@dataclass(frozen=True)
class Gates:
    """The conditions a run must meet, where they came from (None: flags only), and whether a
    baseline is required."""

    conditions: list[Condition] = field(default_factory=list)
    require_baseline: bool = False
    source: Path | None = None

    @property
    def empty(self) -> bool:
        return not self.conditions and not self.require_baseline


def config_path(explicit: Path | None, directory: Path | None = None) -> Path | None:
    """The config file to read: ``explicit`` (which must exist), else ``evalwh.toml`` in ``directory``
    (default: the working directory) when there is one, else None."""
    if explicit is not None:
        if not explicit.is_file():
            raise UsageError(f"--config {explicit}: no such file")
        return explicit
    found = (directory or Path.cwd()) / CONFIG_NAME
    return found if found.is_file() else None


def _limit(path: Path, key: str, metric: str, value: object) -> float:
    # a TOML boolean is not a number, though Python's bool is an int
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value in (float("inf"), float("-inf")) \
            or value != value:
        raise UsageError(f"{path}: [check] {key}.{metric}: expected a finite number, got {value!r}")
    return float(value)


def read_gates(path: Path) -> Gates:
    """The ``[check]`` table of ``path`` as Gates; a malformed file or entry is a UsageError naming
    the file and the key. A file without ``[check]`` sets no gates."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    table = document.get("check", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [check] must be a table")
    conditions: list[Condition] = []
    for key, entries in table.items():
        if key not in KEYS:
            raise UsageError(f"{path}: [check] has no key {key!r}{closest(key, list(KEYS))} "
                             f"(keys: {', '.join(KEYS)})")
        if key == "require_baseline":
            continue
        if not isinstance(entries, dict):
            raise UsageError(f"{path}: [check] {key} must be a table of METRIC = NUMBER, "
                             f"for example {key} = {{ supported_share = 0.8 }}")
        for metric, value in entries.items():
            limit = _limit(path, key, metric, value)
            if key == "max_regressions" and metric.lower() not in REGRESSIONS:
                raise UsageError(f"{path}: [check] max_regressions.{metric}: count questions or claims"
                                 f"{closest(metric.lower(), list(REGRESSIONS))}")
            conditions.append(Condition(KINDS[key], metric.strip().lower(), limit))
    required = table.get("require_baseline", False)
    if not isinstance(required, bool):
        raise UsageError(f"{path}: [check] require_baseline: expected true or false, got {required!r}")
    return Gates(conditions, required, path)


def merge(configured: Gates | None, flags: list[Condition], require_baseline: bool = False) -> Gates:
    """The file's gates with the flags laid over them: a flag replaces the file's condition of the
    same kind and metric."""
    if configured is None:
        return Gates(list(flags), require_baseline, None)
    given = {(c.kind, c.metric) for c in flags}
    kept = [c for c in configured.conditions if (c.kind, c.metric) not in given]
    return Gates(kept + list(flags), configured.require_baseline or require_baseline, configured.source)


def load_gates(explicit: Path | None, flags: list[Condition] | None = None, require_baseline: bool = False,
               *, use_config: bool = True) -> Gates:
    """The gates for one command: the config file (``explicit``, else ``./evalwh.toml``; none with
    ``use_config=False``) merged with the flags."""
    path = config_path(explicit) if use_config else None
    return merge(read_gates(path) if path is not None else None, flags or [], require_baseline)
