"""The core plugin contributes the bundled corpora and model backends through the ordinary hooks."""

from __future__ import annotations

import importlib.util

import pytest

from spade_core import builtin_plugin
from spade_core.corpora.base import Corpus
from spade_core.plugins.contributions import CorpusSpec, ModelBackendSpec
from spade_core.plugins.manager import PluginRegistry


@pytest.fixture
def registry() -> PluginRegistry:
    reg = PluginRegistry(load_entry_points=False)
    assert reg.register(builtin_plugin, "core-test"), reg.failures
    return reg


def test_corpora_are_contributed_and_load(registry: PluginRegistry) -> None:
    specs = registry.collect_flat("spade_corpora")
    assert {s.name for s in specs} == {"wiki", "jsonl", "parquet", "hf"}
    assert all(isinstance(s, CorpusSpec) and s.description for s in specs)
    for spec in specs:
        assert issubclass(spec.load(), Corpus)
    assert not registry.failures


def test_model_backends_are_contributed_and_import_lazily(registry: PluginRegistry) -> None:
    specs = {s.name: s for s in registry.collect_flat("spade_model_backends")}
    assert set(specs) == {"hf", "openai", "vllm"} and all(isinstance(s, ModelBackendSpec) for s in specs.values())
    assert specs["openai"].load().name == "openai" and specs["vllm"].load().name == "vllm"
    if importlib.util.find_spec("spade_core.models.hf_backend") is not None:
        assert specs["hf"].load().name == "hf"
