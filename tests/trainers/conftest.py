"""Fixtures for the trainer-backend tests: one tiny local model per session, single-threaded torch."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from spade_core.models.tiny import build_tiny_model


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread():
    """The tiny model is faster on one thread (OpenMP spinning on a busy 2-core machine is very slow); restored
    after each module so other tests keep their settings."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.getbasetemp() / "spade-tiny-model")
