"""Reading a pack's files safely from a folder or a tarball: no path leaves the pack, no link is followed, and
sizes and member counts are bounded before the bytes are read. A tarball is streamed into memory, never extracted."""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path, PurePosixPath
from typing import Protocol

from spade_core.packs.budget import ByteBudget, pack_budget
from spade_core.packs.distribution import MAX_METADATA_BYTES, data_path, is_sdist_metadata
from spade_core.packs.errors import PackError, PackRefusedError
from spade_core.packs.schema import (
    CARD_FILE,
    ENV_DIR,
    INDEX_FILE,
    MAX_CARD_BYTES,
    MAX_INDEX_BYTES,
    MAX_MEMBERS,
    MAX_MODULE_CHARS,
    MAX_PACK_BYTES,
    MAX_RECORD_BYTES,
    MODULE_FILE,
    RECORD_FILE,
)
from spade_core.packs.tar_stream import MAX_PATH_BYTES, TarStream, open_stream

TARBALL_SUFFIXES = (".tar.gz", ".tgz", ".tar")


class PackFiles(Protocol):
    """The files of a pack by relative POSIX path."""

    origin: str

    def read(self, path: str, limit: int) -> bytes:
        """The bytes of ``path``; :class:`PackError` if it is missing, unsafe or longer than ``limit``."""
        ...


def safe_relative(path: str, origin: str) -> str:
    """``path`` if it is a plain relative POSIX path inside the pack (no ``..``, no root, no backslash, no NUL)."""
    if not path or "\\" in path or "\x00" in path or path.startswith("/") or len(path) > MAX_PATH_BYTES:
        raise PackRefusedError(f"{origin}: member {path[:200]!r} is not a plain relative path; refusing the pack")
    parts = PurePosixPath(path).parts
    if any(part in ("..", "") for part in parts) or ":" in parts[0]:
        raise PackRefusedError(f"{origin}: member {path[:200]!r} leaves the pack (path traversal); refusing the pack")
    return "/".join(p for p in parts if p != ".")


class FolderFiles:
    """A pack folder on disk: every path is resolved inside it, and neither the path nor any folder on the way may
    be a symbolic link."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.origin = str(root)
        self._read = 0

    def read(self, path: str, limit: int) -> bytes:
        rel = safe_relative(path, self.origin)
        target = self.root
        for part in rel.split("/"):
            target = target / part
            if target.is_symlink():
                raise PackRefusedError(f"{self.origin}: {rel} goes through a symbolic link; a pack holds plain files only")
        try:
            info = os.stat(target, follow_symlinks=False)
        except FileNotFoundError:
            raise PackError(f"{self.origin}: {rel} is missing") from None
        if not stat.S_ISREG(info.st_mode):
            raise PackError(f"{self.origin}: {rel} is not a regular file")
        if info.st_size > limit:
            raise PackError(f"{self.origin}: {rel} is {info.st_size} bytes, over its {limit} byte limit")
        self._read += info.st_size
        if self._read > MAX_PACK_BYTES:
            raise PackRefusedError(f"{self.origin}: the pack is over {MAX_PACK_BYTES} bytes in all; refusing it")
        with open(target, "rb") as handle:
            return handle.read(limit + 1)[:limit + 1]


class TarFiles:
    """A pack tarball, streamed member by member into memory (never extracted) under one byte budget
    (:func:`~spade_core.packs.budget.pack_budget` of its size on disk): regular files and folders only, every name a
    plain relative path, at most :data:`MAX_MEMBERS` members, and only the files a pack uses (:func:`used_kind`,
    optionally all under one top folder, or a pack sdist: ``<top>/spade_pack_<name>/`` with the sdist's metadata files
    beside it, skipped unread); any other member refuses the pack before its bytes are read. A used member
    over its own limit is skipped unread (its environment is rejected with the size when it is asked for)."""

    def __init__(self, path: Path) -> None:
        self.origin = str(path)
        self._files: dict[str, bytes] = {}
        self._oversize: dict[str, int] = {}
        self._top: str | None = None
        self._distribution: str | None = None  # "<top>/spade_pack_<name>" of a pack sdist
        self._metadata: list[str] = []
        budget = ByteBudget(pack_budget(path.stat().st_size), self.origin)
        try:
            with open_stream(str(path)) as stream:
                self._load(TarStream(stream, budget))
        except (EOFError, OSError, ValueError, zlib.error) as exc:
            raise PackError(f"{self.origin} is not a readable tarball: {type(exc).__name__}: {exc}") from None

    def _load(self, tar: TarStream) -> None:
        names: set[str] = set()
        for count, member in enumerate(tar.members(), start=1):
            if count > MAX_MEMBERS:
                raise PackRefusedError(f"{self.origin} has more than {MAX_MEMBERS} members; refusing the pack")
            name = safe_relative(member.name.rstrip("/") if member.is_dir else member.name, self.origin)
            if member.is_dir:
                continue
            if name in names:
                raise PackRefusedError(f"{self.origin}: member {name!r} appears twice; refusing the pack")
            names.add(name)
            if self._is_metadata(name):
                if member.size > MAX_METADATA_BYTES:
                    raise PackRefusedError(f"{self.origin}: metadata file {name!r} is {member.size} bytes, over "
                                           f"{MAX_METADATA_BYTES}; refusing the pack")
                self._metadata.append(name)
                continue
            rel = self._inside(name, first=len(names) == len(self._metadata) + 1)
            limit = USED_FILES[used_kind(rel)]
            if member.size > limit:
                self._oversize[rel] = member.size
            elif used_kind(rel) != CARD_FILE:
                self._files[rel] = tar.read(f"member {name!r}")
        metadata = [name for name in self._metadata if not name.endswith(f"/{CARD_FILE}")]
        if metadata and self._distribution is None:
            raise PackRefusedError(f"{self.origin}: {metadata[0]!r} is distribution metadata, but no "
                                   "<top>/spade_pack_<name>/ data folder is beside it; refusing the pack")

    def _is_metadata(self, name: str) -> bool:
        """Whether ``name`` is a pack sdist's metadata file (beside its data folder, under the same top folder); a
        ``README.md`` there is also the card of a pack under one top folder, which is skipped unread all the same."""
        parts = tuple(name.split("/"))
        same_top = self._distribution is None or parts[0] == self._distribution.split("/")[0]
        return self._top is None and same_top and len(parts) >= 2 and is_sdist_metadata(parts[1:])

    def _in_distribution(self, name: str, *, first: bool) -> str | None:
        """``name`` relative to the pack when it is ``<top>/spade_pack_<name>/<pack file>`` of a pack sdist."""
        parts = tuple(name.split("/"))
        rel = data_path(parts[1:]) if len(parts) >= 3 and self._top is None else None
        if rel is None or used_kind(rel) is None:
            return None
        prefix = "/".join(parts[:2])
        if self._distribution is None and first:
            self._distribution = prefix
        if prefix != self._distribution:
            raise self._unused(name)
        return rel

    def _inside(self, name: str, *, first: bool) -> str:
        """``name`` relative to the pack (past its one top folder, if it has one), if it is a file the pack uses."""
        in_distribution = self._in_distribution(name, first=first)
        if in_distribution is not None:
            return in_distribution
        if self._distribution is not None:
            raise self._unused(name)
        top, _, rest = name.partition("/")
        if self._top is None and used_kind(name) is None and rest and used_kind(rest) is not None:
            if not first:
                raise PackRefusedError(f"{self.origin}: member {name!r} is under a folder the pack's other files are "
                                       "not; refusing the pack")
            self._top = top
        if self._top is not None:
            if top != self._top or used_kind(rest) is None:
                raise self._unused(name)
            return rest
        if used_kind(name) is None:
            raise self._unused(name)
        return name

    def _unused(self, name: str) -> PackRefusedError:
        return PackRefusedError(f"{self.origin}: member {name[:200]!r} is not a file a pack uses ({INDEX_FILE}, "
                                f"{CARD_FILE}, {ENV_DIR}/<Name>-v<N>/{MODULE_FILE} or {RECORD_FILE}, all optionally "
                                "under one top folder, or under <top>/spade_pack_<name>/ in a pack sdist); refusing "
                                "the pack without reading it")

    def read(self, path: str, limit: int) -> bytes:
        rel = safe_relative(path, self.origin)
        if rel in self._oversize or len(self._files.get(rel, b"")) > limit:
            size = self._oversize.get(rel, len(self._files.get(rel, b"")))
            raise PackError(f"{self.origin}: {rel} is {size} bytes, over its {limit} byte limit")
        if rel not in self._files:
            raise PackError(f"{self.origin}: {rel} is missing")
        return self._files[rel]


def used_kind(rel: str) -> str | None:
    """Which file of a pack ``rel`` is (a key of :data:`USED_FILES`), or None if a pack never uses it."""
    parts = rel.split("/")
    if len(parts) == 1 and parts[0] in (INDEX_FILE, CARD_FILE):
        return parts[0]
    if len(parts) == 3 and parts[0] == ENV_DIR and parts[2] in (MODULE_FILE, RECORD_FILE):
        return parts[2]
    return None


USED_FILES = {INDEX_FILE: MAX_INDEX_BYTES, CARD_FILE: MAX_CARD_BYTES, MODULE_FILE: MAX_MODULE_CHARS * 4,
              RECORD_FILE: MAX_RECORD_BYTES}
"""The files a pack tarball may hold, each with the most bytes it may have (the card is skipped, never kept)."""


def is_tarball(path: Path) -> bool:
    return path.is_file() and path.name.endswith(TARBALL_SUFFIXES)
