"""The vllm backend is import-guarded: without vLLM or a GPU it fails at construction with a typed, actionable error."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

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
