"""One model-spec grammar and one loader for ``spade design``, ``spade eval`` and self-play, with one error type."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.evaluation.errors import ModelSpecError as EvalModelSpecError
from spade_core.models.errors import ModelSpecError
from spade_core.models.loading import resolve_model_dir
from spade_core.models.spec import ModelSpec, local_source, parse_model_spec
from spade_core.plugins.backends import load_backend


@pytest.mark.parametrize(("text", "expected"), [
    (None, ModelSpec("hf")),
    ("", ModelSpec("hf")),
    ("default", ModelSpec("hf")),
    ("SmolLM2", ModelSpec("hf")),
    ("hf", ModelSpec("hf")),
    ("hf:/models/qwen", ModelSpec("hf", "/models/qwen")),
    ("./ckpt/step-5", ModelSpec("hf", "./ckpt/step-5")),
    ("model.Q4.gguf", ModelSpec("hf", "model.Q4.gguf")),
    ("tiny:/tmp/t", ModelSpec("tiny", "/tmp/t")),
    ("openai:qwen-7b@http://127.0.0.1:8000/v1", ModelSpec("openai", "qwen-7b", "http://127.0.0.1:8000/v1")),
    ("openai:qwen-7b", ModelSpec("openai", "qwen-7b")),
    ("openai:@https://host/v1", ModelSpec("openai", None, "https://host/v1")),
    ("openai", ModelSpec("openai")),
    ("vllm:/models/x", ModelSpec("vllm", "/models/x")),
    ("myplugin:arg:with:colons", ModelSpec("myplugin", "arg:with:colons")),
])
def test_the_grammar(text: str | None, expected: ModelSpec) -> None:
    parsed = parse_model_spec(text)
    assert parsed == expected
    assert parse_model_spec(str(parsed)) == parsed  # the canonical text reads back the same


@pytest.mark.parametrize(("text", "message"), [
    ("no-such-thing", "neither a backend spec nor an existing path"),
    ("hf:", "needs a model directory"),
    ("tiny:", "needs a directory"),
    ("vllm:", "needs a model directory"),
    ("openai:m@ftp://x", "must start with http"),
    (":x", "no backend name"),
])
def test_bad_specs_say_what_is_wrong_and_list_the_forms(text: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match=message):
        parse_model_spec(text)


def test_one_error_type_everywhere() -> None:
    assert EvalModelSpecError is ModelSpecError and issubclass(ModelSpecError, ValueError)
    with pytest.raises(ModelSpecError, match="unknown model backend 'nosuch'"):
        load_backend("nosuch:arg")


def test_only_local_models_load_in_process(tmp_path: Path, tiny_model_dir: Path) -> None:
    assert local_source("default") is None
    assert local_source(f"hf:{tiny_model_dir}") == str(tiny_model_dir)
    assert resolve_model_dir(f"hf:{tiny_model_dir}") == tiny_model_dir
    built = Path(local_source(f"tiny:{tmp_path / 'tiny'}"))
    assert (built / "config.json").is_file()
    with pytest.raises(ModelSpecError, match="not a local model"):
        local_source("openai:m@http://127.0.0.1:9/v1")


def test_design_and_eval_read_the_same_grammar(tmp_path: Path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "s.sqlite3")
    suite = tmp_path / "q.jsonl"
    suite.write_text('{"question": "1 + 1?", "answer": "2"}\n')
    for args in (["design", "--domain", "math", "--model", "nosuch:x"],
                 ["eval", "--model", "nosuch:x", "--suite", f"jsonl:{suite}", "--out", str(tmp_path / "run")]):
        result = runner.invoke(cli, ["--store", store, *args])
        assert result.exit_code != 0
        assert "unknown model backend 'nosuch'" in result.output, result.output
