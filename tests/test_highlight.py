"""The highlighted span of a chunk normalises to exactly the quote."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from evalwh.report.highlight import quote_span, segments
from tests.reference import norm

pieces = st.sampled_from(["Loan", "laptop", "İS", "\u212a", "14", "a-b", "--", " ", ", ", "ß", "Σ", "x9", "\n"])
texts = st.one_of(st.lists(pieces, max_size=15).map("".join), st.text(max_size=30))


@given(texts, st.data())
def test_span_normalises_to_the_quote(text: str, data: st.DataObject) -> None:
    normalised = norm(text)
    assume(normalised)
    start = data.draw(st.integers(0, len(normalised) - 1))
    end = data.draw(st.integers(start + 1, len(normalised)))
    quote = norm(normalised[start:end])  # a quote's normal form, as the loader stores it
    assume(quote and quote in normalised)
    span = quote_span(text, quote)
    assert span is not None
    assert norm(text[span[0]:span[1]]) == quote


def test_highlight_in_the_chapter_chunk() -> None:
    chunk = "Visitors who need a printer should ask reception, who will print for them. Remote staff reach the corporate network through the VPN."
    assert segments(chunk, "reach the corporate network through the vpn") == [
        ("Visitors who need a printer should ask reception, who will print for them. Remote staff ", False),
        ("reach the corporate network through the VPN", True),
        (".", False),
    ]


def test_no_span_for_empty_or_missing_quote() -> None:
    assert quote_span("anything", "") is None
    assert quote_span("anything", "nothing") is None
    assert segments("abc", "zzz") == [("abc", False)]
