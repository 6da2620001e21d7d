"""Is an input file UTF-8, and if not, what does it look like?

evalwh reads UTF-8 only (a UTF-8 byte-order mark is fine). A file saved as
UTF-16 or Windows-1252 is the usual mistake: the error names the encoding the
bytes look like and the first line that is not UTF-8, so the fix is obvious.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from io import BufferedReader
from pathlib import Path
from typing import TextIO

from evalwh.errors import InputError

# byte-order marks of the encodings evalwh does not read, longest first (UTF-32 LE starts like UTF-16 LE)
FOREIGN_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


COMPRESSIONS = (".gz", ".zst")


def data_suffix(path: Path) -> str:
    """The format suffix of an input file, under any compression: ``claims.csv.gz`` -> ``.csv``."""
    if path.suffix.lower() in COMPRESSIONS:
        return Path(path.stem).suffix
    return path.suffix


def readable_here(path: Path) -> bool:
    """Whether Python can read the file's text (plain or gzip); zstd files are read by DuckDB alone."""
    return path.suffix.lower() != ".zst"


def open_bytes(path: Path) -> gzip.GzipFile | BufferedReader:
    """The file's (decompressed) bytes."""
    if path.suffix.lower() == ".gz":
        return gzip.GzipFile(path, "rb")
    return path.open("rb")


def open_text(path: Path, errors: str) -> TextIO:
    """The file's (decompressed) text as UTF-8, a byte-order mark dropped, newlines untranslated."""
    return io.TextIOWrapper(open_bytes(path), encoding="utf-8-sig", errors=errors, newline="")


def line_blocks(path: Path, block: int = 1 << 24) -> Iterator[tuple[bytes, bool]]:
    """The file's bytes in large blocks of whole lines, each ending with a newline, then what follows
    the last newline (possibly empty): ``(data, is_tail)``. Every block starts a line."""
    carry = b""
    with open_bytes(path) as handle:
        while chunk := handle.read(block):
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            data, carry = data[:cut], data[cut:]
            if data:
                yield data, False
    yield carry, True


def looks_like(raw: bytes, start: int) -> str:
    """What a line whose byte ``start`` breaks UTF-8 most likely is, as a phrase for the message."""
    if b"\x00" in raw:
        return "the line holds NUL bytes: the file looks like UTF-16 or binary"
    byte = raw[start]
    try:
        char = bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return f"byte 0x{byte:02X} is not text in UTF-8 or Windows-1252"
    return f"the file looks like Windows-1252 or Latin-1, where byte 0x{byte:02X} is {char!r}"


def check_byte_order_mark(path: Path) -> None:
    """Raise InputError if the file starts with a UTF-16 or UTF-32 byte-order mark, or is a broken gzip file."""
    if not readable_here(path):
        return
    try:
        with open_bytes(path) as handle:
            head = handle.read(4)
    except (gzip.BadGzipFile, EOFError) as exc:
        raise InputError(path.name, f"not a valid gzip file ({exc})") from None
    for bom, name in FOREIGN_BOMS:
        if head.startswith(bom):
            raise InputError(path.name, f"the file is {name} (it starts with a {name} byte-order mark); "
                                        "save it as UTF-8")


def check_utf8(path: Path, block: int = 1 << 24) -> None:
    """Raise InputError naming the encoding the file looks like and its first line that is not UTF-8.

    Decodes the file in large blocks of whole lines; only a block that fails is read line by line.
    A gzip file is checked decompressed; a zstd file is left to DuckDB's reader.
    """
    if not readable_here(path):
        return
    check_byte_order_mark(path)
    line_base = 0
    for data, _ in line_blocks(path, block):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            for line_no, raw in enumerate(data.split(b"\n"), start=line_base + 1):
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputError(
                        path.name,
                        f"line {line_no}, byte {exc.start + 1}: text is not valid UTF-8; "
                        f"{looks_like(raw, exc.start)}; save it as UTF-8",
                    ) from exc
        line_base += data.count(b"\n")
