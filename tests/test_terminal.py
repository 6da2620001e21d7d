"""A table for a person shows each cell as written: neither Rich markup nor emoji codes in the data are drawn."""

from __future__ import annotations

import io

from evalwh.output.rows import Rows
from evalwh.output.terminal import write_table


def drawn(rows: Rows) -> str:
    stream = io.StringIO()
    write_table(rows, stream)
    return stream.getvalue()


def test_markup_and_emoji_codes_in_cells_and_headers_print_as_written() -> None:
    text = drawn(Rows(("id", ":star: [b]"), [(":thumbs_up:", "[bold]x[/bold] :smile: a:b:c")]))
    for cell in (":thumbs_up:", "[bold]x[/bold] :smile: a:b:c", ":star: [b]"):
        assert cell in text, text
    assert "\N{THUMBS UP SIGN}" not in text and "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}" not in text


def test_every_row_and_column_is_drawn() -> None:
    lines = drawn(Rows(("a", "b"), [(1, "x"), (2.5, None)])).splitlines()
    body = [line for line in lines if line.startswith("│")]
    assert [[cell.strip() for cell in line.strip("│").split("│")] for line in body] == [["1", "x"], ["2.500", ""]]
