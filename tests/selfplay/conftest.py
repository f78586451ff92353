"""Fixtures for the self-play tests: a tiny model and a six-document corpus (see tests/short_selfplay.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from short_selfplay import write_counting_corpus

from spade_core.models.tiny import build_tiny_model


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("selfplay")
    return {"root": root, "model": build_tiny_model(root / "tiny"), "corpus": write_counting_corpus(root / "docs.jsonl")}
