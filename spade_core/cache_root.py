"""Where SPADE keeps what it can recompute (converted models, fingerprints of installed code): one folder per kind
under the user cache folder, each overridable by its own environment variable."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

import platformdirs


def cache_dir(kind: str, env_var: str) -> Path:
    """``$<env_var>`` if set, else ``<user cache folder>/spade/<kind>``."""
    value = os.environ.get(env_var)
    if value:
        return Path(value)
    return Path(platformdirs.user_cache_dir("spade")) / kind


def keep(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write a cache entry atomically (a temporary file beside it, then a rename): a reader sees the whole entry or
    none. A folder that cannot be written, or a full disk, only costs recomputing it later; nothing half-written
    is left behind."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
