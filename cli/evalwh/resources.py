"""Where the data shipped inside the package lives: schema steps, models, seeds, templates.

Everything is read through importlib.resources so evalwh works from any
directory, installed normally or in editable mode.
"""

from __future__ import annotations

import re
from importlib.resources import files
from importlib.resources.abc import Traversable

SCHEMA_STEP = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def schema_steps() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) for every schema step in ``sql/``, in version order."""
    steps = []
    for entry in files("evalwh.sql").iterdir():
        match = SCHEMA_STEP.match(entry.name)
        if match:
            steps.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(steps)


def model_sources() -> dict[str, str]:
    """View name -> its SELECT, one per ``models/*.sql`` file."""
    return {
        entry.name.removesuffix(".sql"): entry.read_text(encoding="utf-8")
        for entry in files("evalwh.models").iterdir()
        if entry.name.endswith(".sql")
    }


def model_source(name: str) -> str:
    """The SELECT of one model (``models/<name>.sql``)."""
    return (files("evalwh.models") / f"{name}.sql").read_text(encoding="utf-8")


def seed_dir(name: str) -> Traversable | None:
    """The bundled dataset folder called ``name``, or None."""
    entry = files("evalwh.seeds") / name
    return entry if entry.is_dir() else None


def seed_names() -> list[str]:
    """Names of the bundled datasets."""
    return sorted(e.name for e in files("evalwh.seeds").iterdir() if e.is_dir() and not e.name.startswith("_"))
