"""Output: rows and their formats, files written whole or not at all, the terminal, the Jinja environments.

Lives here: ``rows`` (``Rows``, ``Format``: no Rich, no Typer), ``files`` (atomic files),
``rowfiles`` (rows written by DuckDB's COPY), ``terminal`` (the table and progress bars: the only
module that imports Rich, lazily), ``templates`` (Jinja).
May import: ``evalwh.errors``, ``sqltext``, ``evalwh.warehouse`` (the connection rows are copied out of).
"""

from evalwh.output.rows import Format, Rows

__all__ = ["Format", "Rows"]
