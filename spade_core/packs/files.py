"""Reading a pack's files safely from a folder or a tarball: no path leaves the pack, no link is followed, and
sizes and member counts are bounded. A tarball is read in memory and never extracted."""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path, PurePosixPath
from typing import Protocol

from spade_core.packs.errors import PackError, PackRefusedError
from spade_core.packs.schema import MAX_MEMBERS, MAX_PACK_BYTES

TARBALL_SUFFIXES = (".tar.gz", ".tgz", ".tar")


class PackFiles(Protocol):
    """The files of a pack by relative POSIX path."""

    origin: str

    def read(self, path: str, limit: int) -> bytes:
        """The bytes of ``path``; :class:`PackError` if it is missing, unsafe or longer than ``limit``."""
        ...


def safe_relative(path: str, origin: str) -> str:
    """``path`` if it is a plain relative POSIX path inside the pack (no ``..``, no root, no backslash, no NUL)."""
    if not path or "\\" in path or "\x00" in path or path.startswith("/") or len(path) > 1024:
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
    """A pack tarball, read member by member into memory (never extracted): regular files and folders only, every
    name a plain relative path, at most :data:`MAX_MEMBERS` members and :data:`MAX_PACK_BYTES` in all."""

    def __init__(self, path: Path) -> None:
        self.origin = str(path)
        self._files: dict[str, bytes] = {}
        try:
            with tarfile.open(path, "r:*") as archive:
                self._load(archive)
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            raise PackError(f"{self.origin} is not a readable tarball: {type(exc).__name__}: {exc}") from None
        tops = {name.split("/", 1)[0] for name in self._files}
        # ``tar czf pack.tar.gz pack/`` puts everything under one folder: read the pack inside it
        self._top = tops.pop() if len(tops) == 1 and all("/" in name for name in self._files) else None

    def _load(self, archive: tarfile.TarFile) -> None:
        total = 0
        for count, member in enumerate(iter(archive.next, None), start=1):
            if count > MAX_MEMBERS:
                raise PackRefusedError(f"{self.origin} has more than {MAX_MEMBERS} members; refusing the pack")
            name = safe_relative(member.name.rstrip("/") if member.isdir() else member.name, self.origin)
            if member.isdir():
                continue
            if not member.isreg():
                kind = "a link" if (member.issym() or member.islnk()) else "not a regular file"
                raise PackRefusedError(f"{self.origin}: member {name!r} is {kind}; a pack holds plain files only")
            total += member.size
            if total > MAX_PACK_BYTES:
                raise PackRefusedError(f"{self.origin} unpacks to over {MAX_PACK_BYTES} bytes; refusing the pack")
            if name in self._files:
                raise PackRefusedError(f"{self.origin}: member {name!r} appears twice; refusing the pack")
            handle = archive.extractfile(member)
            data = handle.read(member.size + 1) if handle is not None else b""
            if len(data) != member.size:
                raise PackError(f"{self.origin}: member {name!r} is not {member.size} bytes as its header says")
            self._files[name] = data

    def read(self, path: str, limit: int) -> bytes:
        rel = safe_relative(path, self.origin)
        rel = rel if rel in self._files else f"{self._top}/{rel}" if self._top else rel
        if rel not in self._files:
            raise PackError(f"{self.origin}: {rel} is missing")
        data = self._files[rel]
        if len(data) > limit:
            raise PackError(f"{self.origin}: {rel} is {len(data)} bytes, over its {limit} byte limit")
        return data


def is_tarball(path: Path) -> bool:
    return path.is_file() and path.name.endswith(TARBALL_SUFFIXES)
