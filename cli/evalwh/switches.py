"""The switches of one invocation that library code reads: ``--quiet`` and ``--safe-csv``.

They live apart from the command-line layer (``evalwh.options``) so that loading a run
from Python, as a library, does not import Typer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Settings:
    safe_csv: bool = False
    quiet: bool = False


settings = Settings()
