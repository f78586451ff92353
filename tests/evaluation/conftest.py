"""Fixtures for the evaluation tests: the tiny local model with a context long enough for BFCL's prompts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade_core.models.tiny import build_tiny_model

LONG_CONTEXT = 32_768
"""BFCL's first prompt (all function docs) is ~13k tokens in the tiny model's 512-token BPE; Llama's rotary
positions work at any length, so the tiny model's declared context is raised to fit it."""


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = build_tiny_model(tmp_path_factory.getbasetemp() / "spade-eval-tiny-model")
    config_path = path / "config.json"
    config = json.loads(config_path.read_text())
    if config.get("max_position_embeddings", 0) < LONG_CONTEXT:
        config["max_position_embeddings"] = LONG_CONTEXT
        config_path.write_text(json.dumps(config, indent=2))
    return path


@pytest.fixture(scope="session")
def tiny_backend(tiny_model_dir: Path):
    """The tiny model behind the ModelBackend interface; batch size 1 keeps long BFCL prompts unpadded and cheap."""
    from spade_core.models.hf_generator import HFGenerator

    return HFGenerator.from_pretrained(tiny_model_dir, max_batch_size=1)
