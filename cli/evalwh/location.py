"""Where a warehouse lives: a DuckDB file, or a DuckLake named ``ducklake:…`` (evalwh.warehouse.lake).

Apart from the code that opens it, so that the command line parses ``--db`` without importing DuckDB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from evalwh.errors import UsageError, WarehouseError

LAKE_PREFIX = "ducklake:"


@dataclass(frozen=True)
class Lake:
    """A DuckLake named as DuckLake's ATTACH takes it, and where its Parquet files go."""

    spec: str  # what follows ``ducklake:``: ``postgres:dbname=…``, ``sqlite:PATH`` or ``PATH``
    data_path: str | None = None  # DATA_PATH: needed to create the lake, remembered by it after

    def __str__(self) -> str:
        """The lake as messages name it: without a password."""
        return LAKE_PREFIX + redact(self.spec)

    @property
    def catalog(self) -> str:
        """Where the catalog lives: ``postgres``, ``sqlite`` or ``duckdb`` (a file)."""
        head = self.spec.split(":", 1)[0].lower()
        return {"postgres": "postgres", "postgresql": "postgres", "sqlite": "sqlite"}.get(head, "duckdb")

    @property
    def catalog_file(self) -> Path | None:
        """The catalog's file (SQLite or DuckDB); None for a catalog in Postgres."""
        if self.catalog == "postgres":
            return None
        return Path(self.spec.split(":", 1)[1] if self.catalog == "sqlite" else self.spec)

    def exists(self) -> bool | None:
        """Whether the catalog's file exists; None when only attaching can tell (Postgres)."""
        found = self.catalog_file
        return None if found is None else found.exists()


Location = Union[Path, Lake]  # a warehouse: a DuckDB file or a lake


def no_warehouse(where: object) -> WarehouseError:
    """The error of a command that needs a warehouse where there is none (a file or a lake)."""
    return WarehouseError(f"{where}: no warehouse here; create one with `evalwh init` or `evalwh load DIR`")


def redact(text: str) -> str:
    """``text`` with every password replaced by ``***`` (``password=…`` and ``user:pass@`` forms)."""
    text = re.sub(r"(?i)\b(password\s*=\s*)('[^']*'|\S+)", r"\1***", text)
    return re.sub(r"(://[^/:@\s]+:)[^@\s]+@", r"\1***@", text)


def as_location(db: str | Path | Lake, data_path: str | None = None) -> Location:
    """The warehouse ``db`` names: a lake for a value starting ``ducklake:``, else a file path."""
    if isinstance(db, Lake):
        return db if data_path is None else Lake(db.spec, data_path)
    text = str(db)
    if text.startswith(LAKE_PREFIX):
        spec = text[len(LAKE_PREFIX):]
        if not spec.strip():
            raise UsageError("ducklake: names no lake; give ducklake:postgres:dbname=…, ducklake:sqlite:FILE or "
                             "ducklake:FILE.ducklake")
        return Lake(spec, data_path or None)
    if data_path:
        raise UsageError(f"--data-path is for a lake (--db ducklake:…); {text} is a warehouse file")
    return db if isinstance(db, Path) else Path(db)


def is_lake(db: object) -> bool:
    """Whether ``db`` is a lake (or a text naming one)."""
    return isinstance(db, Lake) or str(db).startswith(LAKE_PREFIX)
