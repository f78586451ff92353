"""Test setup: a private registry store for the whole session and deterministic hypothesis settings."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Set before any test module imports spade_core (which registers the default store on import).
_STORE_DIR = Path(tempfile.mkdtemp(prefix="spade-test-store-"))
os.environ["SPADE_STORE"] = str(_STORE_DIR / "registry.sqlite3")

settings.register_profile(
    "spade", derandomize=True, deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("spade")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_STORE_DIR, ignore_errors=True)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A fresh, empty registry store path (not the session default)."""
    return tmp_path / "registry.sqlite3"
