"""A tarball read as a stream of members under a byte budget, never extracted and never read ahead.

``tarfile`` reads a GNU long name or a PAX header whole before anyone can look at its declared size (a 1.5 MB
tarball declaring a 1.5 GiB name costs 1.6 GB); here every header's size is checked (names and PAX headers against
their own small limits, everything against the pack's :class:`~spade_core.packs.budget.ByteBudget`) before its bytes
are read. Only ustar/GNU/PAX regular files and folders are members; links, devices, sparse files and global PAX
headers refuse the tarball.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from spade_core.packs.budget import ByteBudget
from spade_core.packs.errors import PackError, PackRefusedError

BLOCK = 512
MAX_PATH_BYTES = 1024
"""The longest member name a pack may use (a GNU long name or PAX ``path`` is refused past it, before it is read)."""
MAX_PAX_BYTES = 64 * 1024
"""The largest PAX extended header read."""
PAX_USED = frozenset({"path", "size"})
PAX_IGNORED = frozenset({"mtime", "atime", "ctime", "uid", "gid", "uname", "gname", "comment", "charset",
                         "hdrcharset"})
"""PAX keys that say nothing about a member's name or bytes; any key outside both sets refuses the tarball."""
REGULAR, DIRECTORY = (b"0", b"\x00", b"7"), b"5"
LINKS = (b"1", b"2", b"K")
CHUNK = 1024 * 1024


@dataclass(frozen=True)
class TarMember:
    """One member's header: its name as written, its size, and whether it is a folder."""

    name: str
    size: int
    is_dir: bool


def open_stream(path: str) -> BinaryIO:
    """The tarball's bytes, decompressed as they are read when it is gzip (read on demand, never whole)."""
    raw = open(path, "rb")  # noqa: SIM115 - closed by the caller through the returned stream
    magic = raw.read(2)
    raw.seek(0)
    return gzip.GzipFile(fileobj=raw, mode="rb") if magic == b"\x1f\x8b" else raw


class TarStream:
    """Members of a tar stream in order; :meth:`read` or :meth:`skip` each member's data before the next."""

    def __init__(self, stream: BinaryIO, budget: ByteBudget) -> None:
        self.stream = stream
        self.budget = budget
        self.origin = budget.origin
        self._left = 0
        self._padding = 0

    def members(self) -> Iterator[TarMember]:
        long_name: str | None = None
        pax: dict[str, str] = {}
        while True:
            self.skip()
            header = self._take(BLOCK, "a tar header")
            if header is None or header == bytes(BLOCK):
                return
            size = self._size(header)
            kind = header[156:157]
            if kind == b"L":
                long_name = self._long_name(size)
                continue
            if kind == b"x":
                pax = self._pax(size)
                continue
            name = pax.get("path") or long_name or self._ustar_name(header)
            size = int(pax["size"]) if "size" in pax else size
            long_name, pax = None, {}
            self._check_kind(kind, name)
            self._left = 0 if kind == DIRECTORY else size
            self._padding = -size % BLOCK if kind != DIRECTORY else 0
            yield TarMember(name, size if kind != DIRECTORY else 0, kind == DIRECTORY)

    def read(self, what: str) -> bytes:
        """The current member's data (charged to the budget before it is read)."""
        data = self._take(self._left, what) or b""
        self._left = 0
        return data

    def skip(self) -> None:
        """Read past the rest of the current member's data and padding, charging it, keeping none of it."""
        left, self._left, self._padding = self._left + self._padding, 0, 0
        self.budget.charge(left, "a member's data")
        while left:
            chunk = self.stream.read(min(left, CHUNK))
            if not chunk:
                raise PackError(f"{self.origin}: the tarball ends inside a member")
            left -= len(chunk)

    # -- headers ------------------------------------------------------------------------------------------
    def _take(self, size: int, what: str) -> bytes | None:
        self.budget.charge(size, what)
        data = self.stream.read(size)
        if not data and size:
            return None
        if len(data) != size:
            raise PackError(f"{self.origin}: the tarball ends inside {what} ({len(data)} of {size} bytes)")
        return data

    def _size(self, header: bytes) -> int:
        _check_sum(header, self.origin)
        field = header[124:136]
        if field[0] & 0x80:  # base-256 (GNU): only for sizes past 8 GiB, never a pack's
            raise PackRefusedError(f"{self.origin}: a tar header declares a base-256 size (over 8 GiB); refusing "
                                   "the pack")
        return _octal(field, self.origin)

    def _long_name(self, size: int) -> str:
        if size > MAX_PATH_BYTES + 1:
            raise PackRefusedError(f"{self.origin}: a GNU long name declares {size} bytes, over the {MAX_PATH_BYTES} "
                                   "byte name limit; refusing the pack before reading it")
        data = self._padded(size, "a GNU long name")
        return _decode(data.split(b"\x00", 1)[0], self.origin)

    def _pax(self, size: int) -> dict[str, str]:
        if size > MAX_PAX_BYTES:
            raise PackRefusedError(f"{self.origin}: a PAX header declares {size} bytes, over the {MAX_PAX_BYTES} byte "
                                   "limit; refusing the pack before reading it")
        records = parse_pax(self._padded(size, "a PAX header"), self.origin)
        if "size" in records and not records["size"].isdigit():
            raise PackRefusedError(f"{self.origin}: a PAX size {records['size'][:40]!r} is not a number")
        if len(records.get("path", "").encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
            raise PackRefusedError(f"{self.origin}: a PAX path is over the {MAX_PATH_BYTES} byte name limit")
        return records

    def _padded(self, size: int, what: str) -> bytes:
        data = self._take(size + (-size % BLOCK), what)
        if data is None:
            raise PackError(f"{self.origin}: the tarball ends inside {what}")
        return data[:size]

    def _ustar_name(self, header: bytes) -> str:
        name = header[0:100].split(b"\x00", 1)[0]
        if header[257:263] == b"ustar\x00":
            prefix = header[345:500].split(b"\x00", 1)[0]
            name = prefix + b"/" + name if prefix else name
        return _decode(name, self.origin)

    def _check_kind(self, kind: bytes, name: str) -> None:
        if kind in REGULAR or kind == DIRECTORY:
            return
        what = "a link" if kind in LINKS else "a global PAX header" if kind == b"g" else "not a regular file"
        raise PackRefusedError(f"{self.origin}: member {name[:200]!r} is {what}; a pack holds plain files only")


def parse_pax(data: bytes, origin: str) -> dict[str, str]:
    """The ``"<length> <key>=<value>\\n"`` records of a PAX header, in one linear pass."""
    records: dict[str, str] = {}
    pos = 0
    while pos < len(data):
        space = data.find(b" ", pos, pos + 20)
        length = data[pos:space]
        if space < 0 or not length.isdigit() or int(length) <= space - pos or pos + int(length) > len(data):
            raise PackRefusedError(f"{origin}: a PAX header record is malformed; refusing the pack")
        end = pos + int(length)
        key, eq, value = data[space + 1:end - 1].partition(b"=")
        if not eq or data[end - 1:end] != b"\n":
            raise PackRefusedError(f"{origin}: a PAX header record is malformed; refusing the pack")
        name = _decode(key, origin)
        if name not in PAX_USED and name not in PAX_IGNORED:
            raise PackRefusedError(f"{origin}: a PAX header sets {name[:60]!r}, which a pack never uses (allowed: "
                                   f"{', '.join(sorted(PAX_USED | PAX_IGNORED))}); refusing the pack")
        records[name] = _decode(value, origin)
        pos = end
    return records


def _check_sum(header: bytes, origin: str) -> None:
    stored = _octal(header[148:156], origin)
    if stored != sum(header[:148]) + 8 * 32 + sum(header[156:]):
        raise PackError(f"{origin} is not a readable tarball: a header's checksum does not match")


def _octal(field: bytes, origin: str) -> int:
    digits = field.replace(b"\x00", b" ").strip()
    if not digits:
        return 0
    if not all(48 <= b <= 55 for b in digits):
        raise PackError(f"{origin} is not a readable tarball: a header number {digits[:16]!r} is not octal")
    return int(digits, 8)


def _decode(raw: bytes, origin: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PackRefusedError(f"{origin}: a member name is not UTF-8; refusing the pack") from None
