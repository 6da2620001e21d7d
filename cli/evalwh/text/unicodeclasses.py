"""Python's Unicode character classes (``\\d``, ``\\s``, ``\\w``, ``[^\\W_]``, and the punctuation and symbols
that SQuAD's normalisation deletes) as code point ranges, shipped per Unicode version.

The native text macros need RE2 classes that match exactly the characters Python's ``re``
matches. Finding them means running each pattern over every code point, a quarter of a
second per process, so the ranges for the Unicode versions of current Pythons ship in
``unicode_classes.json``; a Python on another Unicode version computes its own when first
needed. ``python cli/unicodeclasses.py`` adds the running Python's ranges to the file (it
needs only the standard library, so any Python can run it); tests/test_native_text.py checks
the shipped ranges against the running Python's.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from array import array
from functools import lru_cache
from pathlib import Path

# a class named like this is no pattern of Python's re: it holds every character whose Unicode general
# category (unicodedata.category) starts with one of its letters
CATEGORY_CLASSES: dict[str, str] = {r"[\p{P}\p{S}]": "PS"}
PATTERNS: tuple[str, ...] = (r"\d", r"\s", r"[^\W_]", r"\w", *CATEGORY_CLASSES)
DATA = Path(__file__).with_name("unicode_classes.json")
Span = tuple[int, int]


@lru_cache(maxsize=1)
def every_code_point() -> str:
    """All code points but the surrogates (which no UTF-8 text can hold)."""
    points = array("I", range(0xD800))
    points.extend(range(0xE000, sys.maxunicode + 1))
    return points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


def computed_spans(pattern: str) -> tuple[Span, ...]:
    """(first, last) code points of each run of characters the one-character ``pattern`` matches (or, for
    a name of CATEGORY_CLASSES, of the characters of its categories)."""
    text = every_code_point()
    if pattern in CATEGORY_CLASSES:
        letters = CATEGORY_CLASSES[pattern]
        runs: list[list[int]] = []
        for ch in text:
            if unicodedata.category(ch)[0] in letters:
                point = ord(ch)
                if runs and runs[-1][1] == point - 1:
                    runs[-1][1] = point
                else:
                    runs.append([point, point])
        return tuple((first, last) for first, last in runs)
    return tuple((ord(text[m.start()]), ord(text[m.end() - 1])) for m in re.finditer(f"(?:{pattern})+", text))


@lru_cache(maxsize=1)
def _shipped() -> dict[str, dict[str, list[list[int]]]]:
    return json.loads(DATA.read_text(encoding="utf-8")) if DATA.is_file() else {}


@lru_cache(maxsize=None)
def spans(pattern: str) -> tuple[Span, ...]:
    """The ranges of ``pattern`` for this Python's Unicode version: shipped, else computed."""
    shipped = _shipped().get(unicodedata.unidata_version, {}).get(pattern)
    if shipped is None:
        return computed_spans(pattern)
    return tuple((first, last) for first, last in shipped)


def main() -> None:
    """Write this Python's ranges into the shipped file, beside those of other Unicode versions."""
    table = dict(_shipped())
    table[unicodedata.unidata_version] = {p: [list(s) for s in computed_spans(p)] for p in PATTERNS}
    DATA.write_text(json.dumps(dict(sorted(table.items())), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{DATA}: Unicode {unicodedata.unidata_version} ({', '.join(PATTERNS)})")


if __name__ == "__main__":
    main()
