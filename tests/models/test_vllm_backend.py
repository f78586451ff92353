"""The vllm backend is import-guarded: without vLLM or a GPU it fails at construction with a typed, actionable error."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.models.errors import BackendUnavailableError

HAS_GPU_VLLM = importlib.util.find_spec("vllm") is not None and importlib.util.find_spec("torch") is not None


def test_importing_the_module_does_not_import_vllm() -> None:
    code = "import sys, spade_core.models.vllm_backend; print('vllm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.skipif(HAS_GPU_VLLM, reason="vLLM is installed here; the guard is for machines without it")
def test_constructing_without_vllm_says_how_to_install_it() -> None:
    from spade_core.models.vllm_backend import VLLMBackend

    with pytest.raises(BackendUnavailableError, match=r"spade-rl\[gpu\]") as info:
        VLLMBackend()
    assert "vllm" in str(info.value) and "GPU" in str(info.value)


@given(seed=st.integers(min_value=0, max_value=2**62), n=st.integers(min_value=0, max_value=64))
def test_each_request_of_a_seeded_batch_gets_its_own_seed(seed: int, n: int) -> None:
    """vLLM seeds requests one by one: a shared seed would make a GRPO group's identical prompts sample alike."""
    from spade_core.models.vllm_backend import request_seeds

    seeds = request_seeds(seed, n)
    assert len(seeds) == n and len(set(seeds)) == n
    assert all(0 <= s < 2**63 for s in seeds)
    assert seeds == request_seeds(seed, n)  # reproducible
    assert request_seeds(None, n) == [None] * n  # unseeded batches keep the engine's own RNG
