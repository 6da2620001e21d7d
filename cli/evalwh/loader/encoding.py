"""Is an input file whole and UTF-8, and if not, what does it look like?

evalwh reads UTF-8 only (a UTF-8 byte-order mark is fine). A file saved as
UTF-16 or Windows-1252 is the usual mistake: the error names the encoding the
bytes look like and the first line that is not UTF-8, so the fix is obvious.

A compressed file is checked whole before anything reads it: DuckDB's readers load what
decompresses of a gzip file whose CRC is wrong, and nothing of a truncated zstd file, without
an error. A gzip file is decompressed once (its CRC and length checked); a zstd file's frames are
walked (RFC 8878: each frame's blocks up to its last, and its checksum's place), which finds a
truncated one; a zstd checksum that does not match is DuckDB's reader's error.
"""

from __future__ import annotations

import gzip
import io
import zlib
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


ZSTD_MAGIC = 0xFD2FB528
SKIPPABLE_MAGIC = 0x184D2A50  # to 0x184D2A5F: a frame of metadata, skipped by decoders


def check_gzip(path: Path, block: int = 1 << 24) -> None:
    """Raise InputError unless the file decompresses whole as gzip, every member's CRC and length right."""
    try:
        with gzip.open(path, "rb") as handle:
            while handle.read(block):
                pass
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(path.name, f"not a valid gzip file ({exc}): a truncated or damaged file?") from None


def check_zstd(path: Path) -> None:
    """Raise InputError unless the file is whole zstd frames: each frame's blocks up to its last, and the
    checksum its header announces, with nothing cut off."""
    size = path.stat().st_size

    def fail(at: int, what: str) -> InputError:
        return InputError(path.name, f"not a valid zstd file: {what} at byte {at} (a truncated or damaged file?)")

    with path.open("rb") as handle:
        def read(at: int, count: int) -> int:
            handle.seek(at)
            data = handle.read(count)
            if len(data) < count:
                raise fail(at, "the data ends inside a frame")
            return int.from_bytes(data, "little")

        if size == 0:
            raise fail(0, "the file is empty")
        at = 0
        while at < size:
            magic = read(at, 4)
            if magic & 0xFFFFFFF0 == SKIPPABLE_MAGIC:
                at += 8 + read(at + 4, 4)
                continue
            if magic != ZSTD_MAGIC:
                raise fail(at, "no zstd frame starts")
            descriptor = read(at + 4, 1)
            single_segment = descriptor >> 5 & 1
            header = 1 + (1 - single_segment) + (0, 1, 2, 4)[descriptor & 3] \
                + ((single_segment, 2, 4, 8)[descriptor >> 6])
            at += 4 + header
            last = 0
            while not last:
                block = read(at, 3)
                last, kind, block_size = block & 1, block >> 1 & 3, block >> 3
                if kind == 3:
                    raise fail(at, "a block of a reserved type")
                at += 3 + (1 if kind == 1 else block_size)  # an RLE block holds its one byte
            at += 4 * (descriptor >> 2 & 1)  # the content checksum
            if at > size:
                raise fail(size, "the data ends inside a frame")


def check_compressed(path: Path) -> None:
    """Raise InputError if a gzip or zstd file (by its suffix) is truncated or damaged."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        check_gzip(path)
    elif suffix == ".zst":
        check_zstd(path)


def check_byte_order_mark(path: Path) -> None:
    """Raise InputError if the file is a damaged or truncated compressed file, or starts with a UTF-16 or
    UTF-32 byte-order mark."""
    check_compressed(path)
    if not readable_here(path):
        return
    with open_bytes(path) as handle:
        head = handle.read(4)
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
