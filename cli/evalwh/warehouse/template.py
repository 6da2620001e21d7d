"""A new warehouse file starts as a copy of an empty one, built once and kept in a cache directory.

Creating a warehouse means running every schema step and creating every view, and DuckDB binds a
view's whole query (and the views it reads) when it creates it: most of the cost of a small load
(docs/benchmarks.md). Copying a file costs almost nothing. So the first new warehouse of a release
builds an empty one in the cache, and every new warehouse after it is a copy, stamped with its own
creation time before it takes its name. The cached file is named by a hash of everything that shapes it
(DuckDB's version, the storage format, evalwh's version, the schema steps and the models), so a change
to any of them builds a new one. A copy is then opened and migrated like any other file, so a damaged
template costs time, never a wrong warehouse: one whose copy does not open is discarded and the file is
created from the schema steps.

``EVALWH_CACHE_DIR`` names the directory (default: the user's cache directory, from platformdirs); set
to an empty value, no template is kept and every warehouse is created from the schema steps.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb

from evalwh import __version__
from evalwh.resources import model_sources, schema_steps

CACHE_ENV = "EVALWH_CACHE_DIR"


def cache_dir() -> Path | None:
    """Where templates are kept; None when ``EVALWH_CACHE_DIR`` is set empty (no cache)."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    import platformdirs  # only a new warehouse needs it

    return Path(platformdirs.user_cache_dir("evalwh", appauthor=False))


def template_key(storage_version: str) -> str:
    """A hash of everything an empty warehouse is made of."""
    digest = hashlib.sha256()
    for part in (duckdb.__version__, storage_version, __version__):
        digest.update(f"{part}\0".encode())
    for version, name, sql in schema_steps():
        digest.update(f"{version}\0{name}\0{sql}\0".encode())
    for name, sql in sorted(model_sources().items()):
        digest.update(f"{name}\0{sql}\0".encode())
    return digest.hexdigest()[:20]


def template_path(storage_version: str) -> Path | None:
    """The cached empty warehouse of this release (which may not exist yet); None without a cache."""
    folder = cache_dir()
    return None if folder is None else folder / f"empty-{template_key(storage_version)}.duckdb"


def cached_template(storage_version: str, build: Callable[[Path], None]) -> Path | None:
    """The cached empty warehouse, built by ``build(path)`` if it is not there yet; None when there is no
    cache or it cannot be written (a read-only home), so the caller creates the file itself."""
    target = template_path(storage_version)
    if target is None:
        return None
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # built beside its place and renamed into it: a reader never sees half a template
        scratch = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    except OSError:
        return None
    try:
        build(scratch / target.name)
        os.replace(scratch / target.name, target)
    except (OSError, duckdb.Error):  # a full disk, say: the caller's own creation then says what is wrong
        return None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def copy_new(template: Path, path: Path, prepare: Callable[[Path], None] = lambda copy: None) -> bool:
    """Copy ``template`` to ``path`` unless something is there; whole or not at all (a copy beside it,
    ``prepare(copy)`` run on it, then a hard link, which fails if the name was taken meanwhile). Returns
    whether ``path`` is the copy; ``prepare``'s errors propagate, with nothing at ``path``."""
    scratch = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        shutil.copyfile(template, scratch)
        prepare(scratch)
        os.link(scratch, path)
    except OSError:  # taken meanwhile, or a file system without hard links: created as before
        return False
    finally:
        scratch.unlink(missing_ok=True)
        scratch.with_name(scratch.name + ".wal").unlink(missing_ok=True)
    return True


def copy_empty_warehouse(
    path: Path, storage_version: str, build: Callable[[Path], None], stamp: Callable[[Path], None]
) -> bool:
    """Make the new file ``path`` a copy of the cached empty warehouse (built by ``build`` if need be),
    ``stamp``ed with the moment it is made. False, with nothing at ``path``, when there is no cache, the
    name was taken meanwhile, or the copy does not open (its template is then discarded, to be built anew)."""
    source = cached_template(storage_version, build)
    if source is None:
        return False
    try:
        return copy_new(source, path, stamp)
    except duckdb.Error:
        discard(source)
        return False


def discard(template: Path) -> None:
    """Remove a cached template that did not open, so the next new warehouse builds it again."""
    template.unlink(missing_ok=True)
