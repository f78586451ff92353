"""Fixtures for the memory tests: a fresh registry store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from spade_registry.store import RegistryStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RegistryStore]:
    with RegistryStore(tmp_path / "registry.sqlite3") as s:
        yield s
