"""Lists written as Python literals: how ragas's ``to_csv`` writes a sample's list fields.

``EvaluationDataset.to_csv`` goes through pandas, which writes a list cell as the list's ``repr``
(``['a', "it's"]``). Only Python reads that back exactly (quotes chosen per item, backslash
escapes, ``\\x`` and ``\\u`` forms), so the import registers ``python_list`` as a DuckDB function
(and the Spark import as a pandas UDF) and the format's SQL calls it on such a cell.
"""

from __future__ import annotations

import ast


def python_list(text: str | None) -> list[str | None] | None:
    """The items of a Python list literal as text (``'['a', 1]'`` -> ``['a', '1']``); None for anything
    that is not a list literal (or a JSON list, which reads the same) or holds an item that is no text."""
    if text is None:
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, list):
        return None
    try:
        return [None if item is None else _unicode(item) if isinstance(item, str) else str(item) for item in value]
    except UnicodeDecodeError:  # an item holds half a surrogate pair: no text
        return None


def _unicode(item: str) -> str:
    """The item as Unicode text: an escaped surrogate pair is the character it stands for, as a JSON reader
    reads it ("\\ud83d\\ude00", as JSON writes a character beyond U+FFFF; Python's literal leaves the two
    halves apart, which no UTF-8 text holds). UnicodeDecodeError for a half without its other."""
    try:
        item.encode("utf-8")
        return item
    except UnicodeEncodeError:  # it holds a surrogate
        return item.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
