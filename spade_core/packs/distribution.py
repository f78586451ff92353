"""The installable form of a pack: a source tree with its own ``pyproject.toml`` and a wheel built here.

Both hold the pack's files as package data under ``spade_pack_<name>/`` and declare one entry point,
``[spade.packs] <name> = "spade_pack_<name>"``, that names that folder; there is no Python file to import, no
script and no ``.data/`` folder. Readers of a distribution (a wheel or sdist file, an installed pack) accept exactly
this layout: the data folder and the metadata files listed here.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

from spade_core.packs.schema import ENTRY_POINT_GROUP, PACK_NAME_PATTERN, PackHeader

ZIP_TIME = (1980, 1, 1, 0, 0, 0)
DATA_FOLDER_PREFIX = "spade_pack_"
WHEEL_METADATA = frozenset({"METADATA", "WHEEL", "RECORD", "entry_points.txt", "INSTALLER", "REQUESTED",
                            "direct_url.json", "top_level.txt"})
"""The files a pack wheel's (and an installed pack's) ``.dist-info`` folder may hold; pip writes the last four."""
SDIST_METADATA = frozenset({"PKG-INFO", "pyproject.toml", "setup.cfg", "README.md"})
"""The files at the top of a pack sdist besides its data folder."""
EGG_INFO_METADATA = frozenset({"PKG-INFO", "SOURCES.txt", "dependency_links.txt", "entry_points.txt",
                               "top_level.txt"})
"""The files of a pack sdist's ``.egg-info`` folder."""
MAX_METADATA_BYTES = 1024 * 1024
"""The largest metadata file a pack distribution may hold (metadata is skipped unread by the pack readers)."""


def data_folder(pack_name: str) -> str:
    return f"{DATA_FOLDER_PREFIX}{pack_name}"


def data_path(parts: tuple[str, ...]) -> str | None:
    """The path inside the pack of ``spade_pack_<name>/<path>`` (given as path parts), else None."""
    if len(parts) < 2 or not parts[0].startswith(DATA_FOLDER_PREFIX):
        return None
    return "/".join(parts[1:]) if PACK_NAME_PATTERN.fullmatch(parts[0][len(DATA_FOLDER_PREFIX):]) else None


def is_wheel_metadata(parts: tuple[str, ...]) -> bool:
    return len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] in WHEEL_METADATA


def is_sdist_metadata(parts: tuple[str, ...]) -> bool:
    """Whether ``parts`` (below the sdist's top folder) name one of its metadata files."""
    if len(parts) == 1:
        return parts[0] in SDIST_METADATA
    return len(parts) == 2 and parts[0].endswith(".egg-info") and parts[1] in EGG_INFO_METADATA


def distribution_name(pack_name: str) -> str:
    return f"spade-pack-{pack_name.replace('_', '-')}"


def pyproject(header: PackHeader, version: str) -> str:
    folder = data_folder(header.name)
    description = header.description.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")[:200]
    return f"""[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "{distribution_name(header.name)}"
version = "{version}"
description = "SPADE environment pack {header.name}: {description}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = []

# The entry point names the data folder; SPADE reads it as data and never imports it.
[project.entry-points."{ENTRY_POINT_GROUP}"]
{header.name} = "{folder}"

[tool.setuptools]
packages = ["{folder}"]
include-package-data = true

[tool.setuptools.package-data]
"{folder}" = ["*.json", "*.md", "environments/*/*"]
"""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(header: PackHeader, version: str, files: dict[str, bytes], out_dir: Path) -> Path:
    """A ``py3-none-any`` wheel of the pack's ``files`` (relative paths -> bytes) as data; returns its path."""
    folder = data_folder(header.name)
    info = f"{folder}-{version}.dist-info"
    summary = f"SPADE environment pack {header.name}".replace("\n", " ")
    meta = {
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: {distribution_name(header.name)}\nVersion: {version}\n"
                             f"Summary: {summary}\nRequires-Python: >=3.11\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: spade\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": f"[{ENTRY_POINT_GROUP}]\n{header.name} = {folder}\n".encode(),
    }
    entries = {f"{folder}/{path}": data for path, data in sorted(files.items())} | meta
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{folder}-{version}-py3-none-any.whl"
    record = [_record_line(name, data) for name, data in entries.items()] + [f"{info}/RECORD,,"]
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in [*entries.items(), (f"{info}/RECORD", ("\n".join(record) + "\n").encode())]:
            item = zipfile.ZipInfo(name, ZIP_TIME)
            item.external_attr = 0o644 << 16
            item.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(item, data)
    return wheel
