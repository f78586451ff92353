"""Process-wide cache of open registry stores, keyed by path (``make`` must not reopen SQLite each time)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from spade_registry.paths import resolve_store_path
from spade_registry.store import RegistryStore

_lock = threading.Lock()
_open: dict[tuple[int, Path], RegistryStore] = {}


def open_store(path: str | os.PathLike[str] | None = None) -> RegistryStore:
    """The shared :class:`RegistryStore` for ``path`` (default store if ``None``) in this process.

    Keyed by pid too, so a forked child never reuses its parent's SQLite connection.
    """
    key = (os.getpid(), resolve_store_path(path).resolve())
    with _lock:
        store = _open.get(key)
        if store is None:
            store = _open[key] = RegistryStore(key[1])
        return store


def close_stores() -> None:
    """Close every cached store of this process (tests switch stores with this)."""
    with _lock:
        for (pid, _), store in list(_open.items()):
            if pid == os.getpid():
                store.close()
        _open.clear()
