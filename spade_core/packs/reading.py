"""Open a pack from wherever it is: a folder, a tarball, a parquet file or folder, or an installed pack's name."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from spade_core.packs.errors import PackError, PackFormatError, PackRefusedError
from spade_core.packs.files import FolderFiles, PackFiles, TarFiles, is_tarball
from spade_core.packs.installed import installed_packs
from spade_core.packs.parquet import read_parquet
from spade_core.packs.schema import (
    INDEX_FILE,
    MAX_INDEX_BYTES,
    MAX_MODULE_CHARS,
    MAX_RECORD_BYTES,
    MODULE_FILE,
    PARQUET_FILE,
    RECORD_FILE,
    BrokenEnvironment,
    Pack,
    PackEnvironment,
    load_json,
    parse_environment,
    parse_index,
)
from spade_core.packs.wheel_files import WheelFiles, is_wheel
from spade_core.plugins.contributions import PackSpec
from spade_core.plugins.manager import get_plugins


def read_files(files: PackFiles) -> Pack:
    """A pack from its files: a malformed index refuses the whole pack; a malformed environment is kept as a
    :class:`BrokenEnvironment` (rejected on import with the reason) and the others still load."""
    header, entries = parse_index(load_json(files.read(INDEX_FILE, MAX_INDEX_BYTES), INDEX_FILE, MAX_INDEX_BYTES))
    environments: list[PackEnvironment | BrokenEnvironment] = []
    for entry in entries:
        try:
            code = files.read(f"{entry.path}/{MODULE_FILE}", MAX_MODULE_CHARS * 4)
            record = files.read(f"{entry.path}/{RECORD_FILE}", MAX_RECORD_BYTES)
            environments.append(parse_environment(entry, code, record))
        except PackFormatError as exc:
            environments.append(BrokenEnvironment(entry.pack_id, str(exc)))
        except PackRefusedError:
            raise
        except PackError as exc:
            environments.append(BrokenEnvironment(entry.pack_id, str(exc)))
    return Pack(header=header, environments=tuple(environments), origin=files.origin)


def open_pack(source: str, *, search_path: Iterable[str] | None = None) -> Pack:
    """Read the pack at ``source``: a folder with ``pack.json``, a ``.tar.gz``/``.tgz``/``.tar`` (a pack tarball or
    a pack's sdist), a pack's wheel (``.whl``, read as an archive, never installed), a ``.parquet`` file or a folder
    with ``data/environments.parquet``, else the name of an installed pack."""
    path = Path(source).expanduser()
    if path.is_dir():
        if (path / INDEX_FILE).is_file():
            return read_files(FolderFiles(path))
        if (path / PARQUET_FILE).is_file():
            return read_parquet(path)
        raise PackError(f"{source} is a folder without {INDEX_FILE} or {PARQUET_FILE}; is it a SPADE pack?")
    if path.is_file():
        if is_tarball(path):
            return read_files(TarFiles(path))
        if is_wheel(path):
            return read_files(WheelFiles(path))
        if path.name.endswith(".parquet"):
            return read_parquet(path)
        raise PackError(f"{source} is a file but not a pack (.tar.gz, .tgz, .tar, .whl or .parquet)")
    specs = pack_specs(search_path)
    for spec in specs:
        if spec.name == source:
            if spec.problem is not None:
                raise PackError(f"pack {spec.name!r} ({spec.distribution}) is refused: {spec.problem}")
            if not spec.location or not Path(spec.location).exists():
                raise PackError(f"pack {spec.name!r} ({spec.distribution}): {spec.location!r} does not exist")
            return open_pack(spec.location)
    known = ", ".join(sorted(s.name for s in specs)) or "none"
    raise PackError(f"{source!r} is neither a pack file or folder nor an installed pack (installed packs: {known})")


def pack_specs(search_path: Iterable[str] | None = None) -> list[PackSpec]:
    """Every pack offered by name: by plugins (``spade_packs``, which covers pip-installed packs), or the packs
    installed on ``search_path`` only when it is given."""
    if search_path is not None:
        return [pack.as_spec() for pack in installed_packs(search_path)]
    return [spec for spec in get_plugins().collect_flat("spade_packs") if isinstance(spec, PackSpec)]
