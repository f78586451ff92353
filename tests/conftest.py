"""Test setup: a private registry store for the whole session, deterministic hypothesis settings, one torch thread,
and the tiny local model (a `tokenizers` BPE + a random 2-layer Llama) that model tests share."""

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
os.environ["SPADE_FINGERPRINT_CACHE"] = str(_STORE_DIR / "fingerprints")  # seeds are played once per session
os.environ["SPADE_SEED_VERDICT_CACHE"] = str(_STORE_DIR / "seed-verdicts")  # plugin seeds gated once per session

settings.register_profile(
    "spade", derandomize=True, deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("spade")


def pytest_sessionstart(session: pytest.Session) -> None:
    """hypothesis is a pytest plugin, so pytest parses its modules (assertion rewriting) when they are first imported,
    and `st.from_regex` imports its regex module lazily, in the middle of a test. On CPython 3.11 a parse that meets
    another thread's (a test's thread pool) can fail with the spurious "AST constructor recursion depth mismatch"
    (gh-106905, see registry/syntax.py), which this process's lock cannot cover in pytest's own code: imported here,
    before any test starts a thread (after start-up, where hypothesis warns against loading its data)."""
    import hypothesis.strategies._internal.regex  # noqa: F401


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_STORE_DIR, ignore_errors=True)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A fresh, empty registry store path (not the session default)."""
    return tmp_path / "registry.sqlite3"


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    """Tiny models are fastest on one thread: OpenMP spinning on a busy 2-core machine is very slow."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model directory (``save_pretrained`` layout, chat template included), built once per session."""
    from spade_core.models.tiny import build_tiny_model  # imported late: SPADE_STORE must be set first

    return build_tiny_model(tmp_path_factory.getbasetemp() / "spade-tiny-model")


@pytest.fixture(scope="session")
def tiny_generator(tiny_model_dir: Path):
    """An HFGenerator over the tiny model."""
    from spade_core.models.hf_generator import HFGenerator

    return HFGenerator.from_pretrained(tiny_model_dir)
