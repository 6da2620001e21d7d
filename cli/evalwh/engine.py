"""DuckDB's engine, the way evalwh talks to it: SQL through the compiled module the duckdb package is built on.

The duckdb package (2.0) is two things: the engine, a compiled module (``_duckdb``) holding connections,
``execute``, the ``fetch`` methods, ``register``, ``create_function`` and every exception class, and a
relational API written in Python over it (``con.sql``, ``con.table``, ``read_csv``, expressions), which
``import duckdb`` loads too, with the package's metadata for its version. evalwh speaks to DuckDB in
SQL only, so the modules a command loads take the engine from here and a command that reads the
warehouse starts without the Python layer (docs/benchmarks.md, start-up, measures what that saves).
The package's classes are these same objects: ``duckdb.Error`` is ``_duckdb.Error``, and a connection
from either is one type. Code that needs the Python layer (a relation, ``duckdb.func``,
``duckdb.sqltypes``) imports ``duckdb`` itself, which adds its methods to the same connections.
"""

import _duckdb as duckdb

__all__ = ["duckdb"]
