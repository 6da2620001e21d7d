"""Files written whole or not at all: a half-written report or CSV never replaces a good one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from evalwh.errors import UsageError


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A new empty file beside ``path``, to be filled in the block; it replaces ``path`` only if the block completes."""
    for folder in (path.parent, *path.parent.parents):
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"{path}: cannot write there, {folder} is not a directory")
            break
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes the file private; a written file follows the umask
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_output(path: Path) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` only if the block completes."""
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as handle:
        yield handle


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_lines(lines: Sequence[str], stream: TextIO) -> None:
    """Write text lines, each ending in a newline."""
    for line in lines:
        stream.write(line + "\n")
