"""The installable form of a pack: a source tree with its own ``pyproject.toml`` and a wheel built here.

Both hold the pack's files as package data under ``spade_pack_<name>/`` and declare one entry point,
``[spade.packs] <name> = "spade_pack_<name>"``, that names that folder; there is no Python file to import.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

from spade_core.packs.schema import ENTRY_POINT_GROUP, PackHeader

ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def data_folder(pack_name: str) -> str:
    return f"spade_pack_{pack_name}"


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
