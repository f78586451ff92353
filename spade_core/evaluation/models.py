"""``--model`` for ``spade eval``: a backend name plus a path, resolved into a :class:`ModelBackend`.

Accepted forms (nothing is ever downloaded):

- ``default`` (or ``embedded``/``smollm2``, or nothing): the embedded SmolLM2-135M-Instruct GGUF, via
  :mod:`spade_core.models.loading` (converted once into the model cache);
- ``hf:<dir or .gguf>`` or a bare path: a local Hugging Face directory or GGUF file, run in-process by
  :class:`~spade_core.models.hf_generator.HFGenerator`;
- ``tiny:<dir>``: a tiny random model built on the spot in ``dir`` (smoke tests; its answers are noise);
- ``openai:<model>``: an OpenAI-compatible server (base URL and key from the environment, see
  :mod:`spade_core.models.openai_backend`);
- ``<backend>:<argument>``: any backend a plugin registers with ``spade_model_backends`` (its factory is called
  with the argument).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spade_core.evaluation.errors import ModelSpecError
from spade_core.models.base import ModelBackend

DEFAULT_MODEL = "default"
_DEFAULT_ALIASES = ("", "default", "embedded", "smollm2", "smollm2-135m-instruct")
FORMS = "default | hf:<dir or .gguf> | <dir or .gguf> | tiny:<dir> | openai:<model> | <plugin backend>:<argument>"


def _hf(source: str | None, *, max_batch_size: int, device: str | None) -> ModelBackend:
    from spade_core.models.hf_generator import HFGenerator
    from spade_core.models.loading import load_model

    loaded = load_model(source, device=device)
    generator = HFGenerator(loaded.model, loaded.tokenizer, max_batch_size=max_batch_size)
    generator.name = f"hf:{loaded.source}"  # type: ignore[misc] - per-instance label for result files
    return generator


def _plugin_backends() -> dict[str, Any]:
    from spade_core.plugins import get_plugins

    return {spec.name: spec for spec in get_plugins().collect_flat("spade_model_backends")}


def load_backend(spec: str | None = DEFAULT_MODEL, *, max_batch_size: int = 64, device: str | None = None
                 ) -> ModelBackend:
    """The backend named by ``spec`` (see the module docstring); :class:`ModelSpecError` lists the forms."""
    text = (spec or "").strip()
    if text.lower() in _DEFAULT_ALIASES:
        return _hf(None, max_batch_size=max_batch_size, device=device)
    kind, sep, argument = text.partition(":")
    if not sep or (len(kind) == 1 and Path(text).exists()):  # a bare path (or a Windows drive letter)
        kind, argument = "hf", text
    kind = kind.lower()
    if kind == "hf":
        if not argument:
            raise ModelSpecError(f"--model hf: needs a path: hf:<model dir or .gguf file> (forms: {FORMS})")
        return _hf(argument, max_batch_size=max_batch_size, device=device)
    if kind == "tiny":
        from spade_core.models.tiny import build_tiny_model

        if not argument:
            raise ModelSpecError("--model tiny: needs a directory to build the tiny model in: tiny:<dir>")
        return _hf(str(build_tiny_model(argument)), max_batch_size=max_batch_size, device=device)
    if kind == "openai":
        from spade_core.models.openai_backend import OpenAIBackend

        return OpenAIBackend(argument or None)
    backends = _plugin_backends()
    if kind in backends:
        backend = backends[kind].load()(argument)
        if not isinstance(backend, ModelBackend):
            raise ModelSpecError(f"model backend {kind!r} returned {type(backend).__name__}, not a ModelBackend")
        return backend
    known = ", ".join(sorted(backends)) or "none"
    raise ModelSpecError(f"unknown model {text!r}: use {FORMS} (plugin backends: {known})")
