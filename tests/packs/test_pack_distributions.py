"""Pack distributions are read, never installed: ``spade import`` reads a wheel or an sdist as an archive under the
pack's byte budget, and only the pack's data and the distribution's metadata may be in it; an installed pack
distribution with any other file (a ``.pth`` hook, a ``.data/scripts`` script, a console script) is refused."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from pack_helpers import source_store

from spade_core.packs.distribution import data_folder, write_wheel
from spade_core.packs.errors import PackRefusedError
from spade_core.packs.export import export_pack
from spade_core.packs.installed import installed_packs
from spade_core.packs.reading import open_pack
from spade_core.packs.schema import INDEX_FILE, PackHeader
from spade_core.packs.wheel_files import WheelFiles

NAME = "wheeled"


@pytest.fixture(scope="module")
def pack_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The files of an exported pack of two environments (relative path -> bytes)."""
    tmp = tmp_path_factory.mktemp("pack")
    source = source_store(tmp / "source.sqlite3", ["PackWheelA", "PackWheelB"])
    folder = export_pack(source, tmp / "pack", name=NAME, find_parents=False).path
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _wheel_members(files: dict[str, bytes]) -> dict[str, bytes]:
    info = f"{data_folder(NAME)}-1.0.dist-info"
    return {f"{data_folder(NAME)}/{k}": v for k, v in files.items()} | {
        f"{info}/METADATA": b"Name: x\n", f"{info}/WHEEL": b"Wheel-Version: 1.0\n", f"{info}/RECORD": b""}


def test_exported_wheel_is_read_as_an_archive(tmp_path: Path, pack_files: dict[str, bytes]) -> None:
    wheel = write_wheel(PackHeader(NAME, "", "now", "0", {}), "1.0.0", pack_files, tmp_path)
    with zipfile.ZipFile(wheel) as archive:  # the exported distribution holds data and metadata only
        assert all(n.startswith((f"{data_folder(NAME)}/", f"{data_folder(NAME)}-1.0.0.dist-info/"))
                   for n in archive.namelist())
        assert not any(".data/" in n or n.endswith((".py", ".pth")) for n in archive.namelist())
    pack = open_pack(str(wheel))
    assert pack.header.name == NAME and len(pack.environments) == 2


@pytest.mark.parametrize("extra", ["evil.pth", f"{data_folder(NAME)}-1.0.data/scripts/spade",
                                   f"{data_folder(NAME)}/__init__.py", "other_package/module.py",
                                   f"{data_folder(NAME)}-1.0.dist-info/evil.pth"])
def test_wheel_member_outside_the_pack_data_refuses_it(tmp_path: Path, pack_files: dict[str, bytes],
                                                       extra: str) -> None:
    wheel = _zip(tmp_path / "p-1.0-py3-none-any.whl", _wheel_members(pack_files) | {extra: b"import os\n"})
    with pytest.raises(PackRefusedError, match="data only"):
        WheelFiles(wheel)


def test_wheel_members_are_charged_to_the_byte_budget_before_reading(tmp_path: Path,
                                                                     pack_files: dict[str, bytes]) -> None:
    members = _wheel_members(pack_files)
    members[f"{data_folder(NAME)}/{INDEX_FILE}"] = b" " * (40 * 1024 * 1024)  # deflates to ~40 KB
    wheel = _zip(tmp_path / "bomb-1.0-py3-none-any.whl", members)
    assert wheel.stat().st_size < 200_000
    with pytest.raises(PackRefusedError, match="byte\\s+budget"):
        WheelFiles(wheel)


def _sdist(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            item = tarfile.TarInfo(name)
            item.size = len(data)
            tar.addfile(item, io.BytesIO(data))
    return path


def _sdist_members(files: dict[str, bytes]) -> dict[str, bytes]:
    top = "spade-pack-wheeled-1.0"
    return {f"{top}/PKG-INFO": b"Name: x\n", f"{top}/pyproject.toml": b"[project]\n",
            f"{top}/{data_folder(NAME)}.egg-info/SOURCES.txt": b""} | {
        f"{top}/{data_folder(NAME)}/{k}": v for k, v in files.items()}


def test_sdist_is_read_as_an_archive(tmp_path: Path, pack_files: dict[str, bytes]) -> None:
    pack = open_pack(str(_sdist(tmp_path / "spade-pack-wheeled-1.0.tar.gz", _sdist_members(pack_files))))
    assert pack.header.name == NAME and len(pack.environments) == 2


@pytest.mark.parametrize("extra", ["spade-pack-wheeled-1.0/setup.py", "spade-pack-wheeled-1.0/evil.pth",
                                   f"spade-pack-wheeled-1.0/{data_folder(NAME)}/__init__.py"])
def test_sdist_member_outside_the_pack_data_refuses_it(tmp_path: Path, pack_files: dict[str, bytes],
                                                       extra: str) -> None:
    sdist = _sdist(tmp_path / "p.tar.gz", _sdist_members(pack_files) | {extra: b"import os\n"})
    with pytest.raises(PackRefusedError, match="not a file a pack uses"):
        open_pack(str(sdist))


def _installed(site: Path, files: dict[str, bytes], extra_record: list[str], entry_points: str = "") -> Path:
    """A pack distribution as pip leaves it in ``site`` (files, RECORD, entry points), written directly."""
    info = site / f"{data_folder(NAME)}-1.0.dist-info"
    info.mkdir(parents=True)
    record = []
    for rel, data in files.items():
        target = site / data_folder(NAME) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        record.append(f"{data_folder(NAME)}/{rel},,")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: spade-pack-wheeled\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[spade.packs]\n{NAME} = {data_folder(NAME)}\n" + entry_points)
    names = [*record, *extra_record, f"{info.name}/METADATA,,", f"{info.name}/entry_points.txt,,",
             f"{info.name}/RECORD,,"]
    (info / "RECORD").write_text("\n".join(names) + "\n")
    return site


def test_installed_data_only_distribution_is_offered(tmp_path: Path, pack_files: dict[str, bytes]) -> None:
    (found,) = installed_packs([str(_installed(tmp_path / "site", pack_files, []))])
    assert found.problem is None and found.root is not None


@pytest.mark.parametrize("extra_record, entry_points, why", [
    (["../../../bin/spade-helper,,"], "", "outside its data"),  # a .data/scripts file, installed beside spade
    (["evil.pth,,"], "", "outside its data"),
    ([f"{data_folder(NAME)}/helper.py,,"], "", "outside its data"),
    ([], "[console_scripts]\nspade-helper = os:system\n", "entry points outside spade.packs"),
])
def test_installed_distribution_with_anything_but_data_is_refused(tmp_path: Path, pack_files: dict[str, bytes],
                                                                   extra_record: list[str], entry_points: str,
                                                                   why: str) -> None:
    (found,) = installed_packs([str(_installed(tmp_path / "site", pack_files, extra_record, entry_points))])
    assert found.root is None and found.problem is not None and why in found.problem


def test_index_fields_the_importer_does_not_read_are_refused(pack_files: dict[str, bytes]) -> None:
    import json

    from spade_core.packs.errors import PackFormatError
    from spade_core.packs.schema import parse_environment, parse_index
    index = json.loads(pack_files[INDEX_FILE])
    with pytest.raises(PackFormatError, match="does not read"):
        parse_index(index | {"trusted": True})
    entry = dict(index["environments"][0], priority=1)
    with pytest.raises(PackFormatError, match="does not read"):
        parse_index(index | {"environments": [entry]})
    edited = dict(index["environments"][0], domain="math" if index["environments"][0]["domain"] != "math" else "code")
    _, (parsed,) = parse_index(index | {"environments": [edited]})
    with pytest.raises(PackFormatError, match="differ from the index"):
        parse_environment(parsed, pack_files[f"{parsed.path}/module.py.txt"], pack_files[f"{parsed.path}/record.json"])
