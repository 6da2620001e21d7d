"""Text semantics: the chapter's normalisation as Python defines it, and its native DuckDB twin.

Lives here: ``textnorm`` (the reference ``words``, ``norm``, digit runs, registered as UDFs),
``nativetext`` (the same functions as DuckDB SQL macros, proven equal), ``unicodeclasses`` and its
JSON (Python's Unicode classes as code point ranges), ``reader_output`` (a reader's two-line output).
May import: ``evalwh.sqltext`` only.
"""

from evalwh.text.textnorm import norm, words

__all__ = ["norm", "words"]
