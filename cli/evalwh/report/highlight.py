"""Where a claim's quote sits in a chunk's original text, for highlighting in reports.

The status rule compares normalised text; a reader wants to see the words in
the chunk as written. ``quote_span`` maps the match found in ``norm(text)``
back to a span of the original text, using the same words as ``textnorm``.
"""

from __future__ import annotations

from evalwh.text.textnorm import WORD_PATTERN


def _lowered_with_origins(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased character by character, and for each lowered character its source index.

    Lowering one character at a time can differ from ``text.lower()`` only in
    context-dependent letters (final sigma), never in the ASCII letters and
    digits that words are made of, so the words are the same.
    """
    pieces: list[str] = []
    origins: list[int] = []
    for index, char in enumerate(text):
        low = char.lower()
        pieces.append(low)
        origins.extend([index] * len(low))
    return "".join(pieces), origins


def quote_span(text: str, quote_norm: str) -> tuple[int, int] | None:
    """The [start, end) span of ``text`` whose normalised form is the first match of ``quote_norm``.

    None when the normalised quote is empty or not inside the normalised text.
    """
    if not quote_norm:
        return None
    lowered, origins = _lowered_with_origins(text)
    matches = list(WORD_PATTERN.finditer(lowered))
    normalised = " ".join(m.group(0) for m in matches)
    at = normalised.find(quote_norm)
    if at < 0:
        return None
    starts: list[int] = []  # where each word begins in the normalised text
    offset = 0
    for m in matches:
        starts.append(offset)
        offset += len(m.group(0)) + 1

    def source_index(norm_index: int) -> int:
        word = max(i for i, s in enumerate(starts) if s <= norm_index)
        return origins[matches[word].start() + norm_index - starts[word]]

    return source_index(at), source_index(at + len(quote_norm) - 1) + 1


def segments(text: str, quote_norm: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_quoted) pieces around the quote's span."""
    span = quote_span(text, quote_norm)
    if span is None:
        return [(text, False)]
    start, end = span
    return [(piece, quoted) for piece, quoted in
            ((text[:start], False), (text[start:end], True), (text[end:], False)) if piece]
