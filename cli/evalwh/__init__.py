"""evalwh: an evaluation warehouse for grounded RAG answers, on DuckDB.

The library is the product; the ``evalwh`` command is a thin layer over it.
"""

__version__ = "0.1.0"
