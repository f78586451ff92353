"""Packs installed with pip: found through the ``spade.packs`` entry-point group and read as data, never imported.

A pack distribution declares ``<pack name> = <data folder>``; ``importlib.metadata`` reads that value and the
distribution's file list without loading anything. A distribution is refused (listed with the reason, never read)
unless every file it installed is the pack's data (a pack file under its data folder) or its ``.dist-info``
metadata: a ``.pth`` start-up hook, a module, a script from ``.data/scripts`` or any other file refuses it, and so
does an entry point outside ``spade.packs`` (a console script). It is also refused when its data folder is not
where it says, or when the name is not a pack name. Refusing after the install cannot undo what pip already ran:
never pip-install an untrusted pack; ``spade import FILE`` reads a pack's wheel or sdist as an archive.
"""

from __future__ import annotations

import importlib.metadata as metadata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from spade_core.packs.distribution import data_path, is_wheel_metadata
from spade_core.packs.errors import PackError
from spade_core.packs.files import FolderFiles, used_kind
from spade_core.packs.schema import ENTRY_POINT_GROUP, INDEX_FILE, PACK_NAME_PATTERN
from spade_core.plugins.contributions import PackSpec


@dataclass(frozen=True)
class InstalledPack:
    """One ``spade.packs`` entry point: where its data is, or why it is refused."""

    name: str
    distribution: str
    version: str
    data_folder: str
    root: Path | None
    problem: str | None = None

    def as_spec(self) -> PackSpec:
        return PackSpec(self.name, str(self.root) if self.root else "", self.distribution, self.version, self.problem)

    def files(self) -> FolderFiles:
        if self.root is None:
            raise PackError(f"installed pack {self.name!r} ({self.distribution}) is refused: {self.problem}")
        return FolderFiles(self.root)


def _check(ep: metadata.EntryPoint) -> InstalledPack:
    dist = ep.dist
    dist_name = dist.name if dist is not None else "unknown"
    version = dist.version if dist is not None else "?"
    folder = ep.value.strip()

    def refused(problem: str) -> InstalledPack:
        return InstalledPack(ep.name, dist_name, version, folder, None, problem)

    if not PACK_NAME_PATTERN.match(ep.name):
        return refused(f"the entry point name {ep.name[:80]!r} is not a pack name (lowercase letters, digits, '_')")
    if dist is None:
        return refused("its distribution cannot be found")
    if not PACK_NAME_PATTERN.match(folder):
        return refused(f"the entry point value {folder[:80]!r} must name the pack's data folder (one lowercase "
                       "identifier, no module path or attribute)")
    files = dist.files
    if files is None:
        return refused("the distribution lists no files (no RECORD)")
    outside = sorted(str(f) for f in files if not _is_pack_file(PurePosixPath(str(f)).parts, folder))
    if outside:
        return refused(f"it carries files outside its data ({', '.join(outside[:3])}); a pack distribution holds "
                       f"{folder}/ and .dist-info metadata only")
    groups = sorted({e.group for e in dist.entry_points} - {ENTRY_POINT_GROUP})
    if groups:
        return refused(f"it declares entry points outside {ENTRY_POINT_GROUP} ({', '.join(groups[:3])}); a pack "
                       "distribution installs no scripts or plugins")
    if not any(str(f) == f"{folder}/{INDEX_FILE}" for f in files):
        return refused(f"it has no {folder}/{INDEX_FILE}")
    root = Path(str(dist.locate_file(folder)))
    if root.is_symlink() or not root.is_dir():
        return refused(f"its data folder {root} is not a folder")
    return InstalledPack(ep.name, dist_name, version, folder, root)


def _is_pack_file(parts: tuple[str, ...], folder: str) -> bool:
    """Whether an installed file (path parts relative to site-packages) is the pack's data or its metadata."""
    if is_wheel_metadata(parts):
        return True
    rel = data_path(parts) if parts and parts[0] == folder else None
    return rel is not None and used_kind(rel) is not None


def installed_packs(path: Iterable[str] | None = None) -> list[InstalledPack]:
    """Every pack in the ``spade.packs`` entry-point group (of ``sys.path``, or of ``path``), by name."""
    if path is None:
        eps: Iterable[metadata.EntryPoint] = metadata.entry_points(group=ENTRY_POINT_GROUP)
    else:
        eps = [ep for dist in metadata.distributions(path=list(path)) for ep in dist.entry_points
               if ep.group == ENTRY_POINT_GROUP]
    found: dict[str, InstalledPack] = {}
    for ep in sorted(eps, key=lambda e: e.name):
        pack = _check(ep)
        if pack.name in found:
            pack = InstalledPack(pack.name, pack.distribution, pack.version, pack.data_folder, None,
                                 f"another distribution ({found[pack.name].distribution}) installs a pack of this name")
        found.setdefault(pack.name, pack)
    return list(found.values())


def find_installed(name: str, path: Iterable[str] | None = None) -> InstalledPack | None:
    for pack in installed_packs(path):
        if pack.name == name:
            return pack
    return None
