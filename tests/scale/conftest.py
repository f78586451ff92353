"""Fixtures for the Ray scale-out tests: one local Ray instance per module (2 CPUs), a tiny local model, a store
holding one designer-written (sandboxed) environment, and scripted policies for exact comparisons."""

from __future__ import annotations

from pathlib import Path

import pytest
from scale_helpers import CORPUS, SANDBOXED_NAME


@pytest.fixture(scope="module")
def ray_runtime():
    """A local Ray instance for this module, shut down after it."""
    pytest.importorskip("ray", reason="the scale-out tests need Ray: pip install 'spade-rl[ray]'")
    from spade_core.scale.ray_runtime import RayRuntime

    runtime = RayRuntime.start(num_cpus=2)
    assert runtime.started_here, "Ray was already running: an earlier test module did not shut it down"
    yield runtime
    runtime.shutdown()


@pytest.fixture(scope="session")
def tokenizer(tiny_model_dir: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


@pytest.fixture(scope="session")
def sandboxed_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A store with one accepted designer-written environment (runs in the sandbox); registered here.
    Returns ``(store path, env id)``."""
    from spade_core.gym_bridge import open_store, register_store
    from spade_core.validation import validate_source
    from spade_core.validation.pipeline import record_outcome

    source = (CORPUS / "good_secret_number.py").read_text().replace('"SecretNumber"', f'"{SANDBOXED_NAME}"')
    path = str(tmp_path_factory.mktemp("scale-store") / "registry.sqlite3")
    store = open_store(path)
    report = record_outcome(store, source, validate_source(source, store=store))
    assert report.accepted, report.message
    register_store(path, sync_seeds=False)
    return path, report.env_id
