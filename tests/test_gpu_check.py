"""``scripts/gpu_check.py --tiny``: the GPU check's own code (model build, both samplers, one reference-trainer
update with its ratio check, MFU arithmetic, the table) runs on the CPU, as it will on a GPU machine."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "gpu_check.py"


@pytest.fixture(scope="module")
def gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_the_tiny_check_passes_and_prints_one_table(gpu_check, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "check.json"
    assert gpu_check.main(["--tiny", "--peak-tflops", "1", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["ratio_check"] is True and abs(figures["ratio_mean"] - 1.0) < 1e-3
    assert figures["hf_generator_tokens_per_s"] > 0 and figures["transformers_generate_tokens_per_s"] > 0
    assert figures["update_tokens"] > 0 and 0 < figures["update_mfu"] < 1
    assert figures["params"] == figures["matmul_params"] > 0  # tied head: the embedding counts once, as the head
    table = capsys.readouterr().out
    for row in ("sampling tokens/s: HFGenerator vs transformers generate", "update MFU", "ratio check", "PASS"):
        assert row in table


def test_flop_counts_and_peaks(gpu_check, tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    from spade_core.models.tiny import build_tiny_model

    assert gpu_check.peak_tflops("NVIDIA H200", None) == 989.4
    assert gpu_check.peak_tflops("NVIDIA H100 PCIe", None) == 756.0
    assert gpu_check.peak_tflops("Some Future GPU", None) is None
    assert gpu_check.peak_tflops("Some Future GPU", 123.0) == 123.0
    tokenizer = AutoTokenizer.from_pretrained(build_tiny_model(tmp_path / "tokenizer"))
    model = gpu_check.build_model("tiny", "cpu", tokenizer, seed=0)
    embedding = model.get_input_embeddings().weight.numel()
    total = sum(p.numel() for p in model.parameters())
    assert gpu_check.matmul_parameters(model) == total  # tied head: the embedding matrix multiplies every token once
    assert embedding > 0


@pytest.mark.parametrize("shape,billions", [("0.5b", (0.45, 0.55)), ("1.5b", (1.4, 1.6))])
def test_the_realistic_shapes_are_the_published_sizes(gpu_check, shape: str, billions: tuple[float, float]) -> None:
    """Parameter count from the config alone (no weights are built): 0.5-1.5B as the check promises."""
    s = gpu_check.SHAPES[shape]
    h, layers, inter, vocab = s["hidden_size"], s["num_hidden_layers"], s["intermediate_size"], s["vocab_size"]
    kv = h // s["num_attention_heads"] * s["num_key_value_heads"]
    per_layer = h * h + 2 * h * kv + h * h + (h + 2 * kv) + 3 * h * inter + 2 * h
    total = vocab * h + layers * per_layer + h
    assert billions[0] * 1e9 <= total <= billions[1] * 1e9
