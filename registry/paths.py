"""Where the registry store lives: argument > ``SPADE_STORE`` env var > the user data dir."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

STORE_ENV_VAR = "SPADE_STORE"
STORE_FILENAME = "registry.sqlite3"


def default_store_path() -> Path:
    """The store path this process uses when none is given."""
    override = os.environ.get(STORE_ENV_VAR)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("spade", appauthor=False)) / STORE_FILENAME


def resolve_store_path(path: str | os.PathLike[str] | None) -> Path:
    return Path(path).expanduser() if path is not None else default_store_path()
