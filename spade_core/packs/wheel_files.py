"""A pack's distribution files read as archives, never installed: a wheel (``.whl``) is a zip read member by member
under the pack's byte budget, and the layout of a pack distribution (wheel or sdist) is an allow-list: the pack's
data under ``spade_pack_<name>/`` and the distribution's metadata files; any other member (a ``.pth`` file, a
``.data/`` folder with scripts, a module) refuses the pack before its bytes are read.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path, PurePosixPath

from spade_core.packs.budget import ByteBudget, pack_budget
from spade_core.packs.distribution import DATA_FOLDER_PREFIX, data_path, is_wheel_metadata
from spade_core.packs.errors import PackError, PackRefusedError
from spade_core.packs.files import USED_FILES, safe_relative, used_kind
from spade_core.packs.schema import CARD_FILE, MAX_MEMBERS

WHEEL_SUFFIX = ".whl"


def is_wheel(path: Path) -> bool:
    return path.is_file() and path.name.endswith(WHEEL_SUFFIX)


class WheelFiles:
    """A pack wheel read as a zip: every member is a pack file under one ``spade_pack_<name>/`` folder or a
    ``.dist-info`` metadata file; each read is bounded by the member's stored size, charged to the pack's byte budget
    (:func:`~spade_core.packs.budget.pack_budget` of the wheel's size) before it is read."""

    def __init__(self, path: Path) -> None:
        self.origin = str(path)
        self._files: dict[str, bytes] = {}
        self._oversize: dict[str, int] = {}
        budget = ByteBudget(pack_budget(path.stat().st_size), self.origin)
        try:
            with zipfile.ZipFile(path) as archive:
                self._load(archive, budget)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, zlib.error, NotImplementedError) as exc:
            raise PackError(f"{self.origin} is not a readable wheel: {type(exc).__name__}: {exc}") from None

    def _load(self, archive: zipfile.ZipFile, budget: ByteBudget) -> None:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise PackRefusedError(f"{self.origin} has more than {MAX_MEMBERS} members; refusing the pack")
        folders: set[str] = set()
        for info in members:
            budget.charge(len(info.filename), "a member name")
            if info.is_dir():
                continue
            parts = PurePosixPath(safe_relative(info.filename, self.origin)).parts
            rel = data_path(parts)
            if rel is None or used_kind(rel) is None:
                if not is_wheel_metadata(parts):
                    raise PackRefusedError(
                        f"{self.origin}: member {info.filename[:200]!r} is neither the pack's data "
                        f"({DATA_FOLDER_PREFIX}<name>/...) nor wheel metadata; a pack wheel holds data only (no "
                        "scripts, no .data folder, no .pth file, no module); refusing it without reading it")
                continue
            folders.add(parts[0])
            if len(folders) > 1:
                raise PackRefusedError(f"{self.origin} holds two data folders ({', '.join(sorted(folders))}); a "
                                       "pack wheel holds one pack")
            if rel in self._files or rel in self._oversize:
                raise PackRefusedError(f"{self.origin}: member {info.filename!r} appears twice; refusing the pack")
            if info.file_size > USED_FILES[used_kind(rel) or ""]:
                self._oversize[rel] = info.file_size
            elif used_kind(rel) != CARD_FILE:
                budget.charge(info.file_size, f"member {info.filename!r}")
                with archive.open(info) as member:
                    self._files[rel] = member.read(info.file_size + 1)[:info.file_size]

    def read(self, path: str, limit: int) -> bytes:
        rel = safe_relative(path, self.origin)
        size = self._oversize.get(rel, len(self._files.get(rel, b"")))
        if size > limit:
            raise PackError(f"{self.origin}: {rel} is {size} bytes, over its {limit} byte limit")
        if rel not in self._files:
            raise PackError(f"{self.origin}: {rel} is missing")
        return self._files[rel]
