"""Pack fixtures (helpers in ``pack_helpers``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pack_helpers import source_store


@pytest.fixture
def make_source(tmp_path: Path):
    """``make_source(names)``: a store of those designer environments (see :func:`pack_helpers.source_store`)."""
    return lambda names, name="source": source_store(tmp_path / f"{name}.sqlite3", names)
