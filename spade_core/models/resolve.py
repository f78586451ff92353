"""The one loader: a model spec (:mod:`spade_core.models.spec`) in, a :class:`ModelBackend` out.

``spade design``, ``spade eval`` and self-play's ``designer.model`` all load through
:func:`spade_core.plugins.backends.load_backend`, which passes :func:`load_from` the backends of the
``spade_model_backends`` hook (the core registers ``hf``, ``openai`` and ``vllm``; plugins add more); the name before
the colon is looked up there; ``tiny`` builds a tiny model and loads it with ``hf``. A spec that names nothing
loadable raises :class:`~spade_core.models.errors.ModelSpecError`. This module never imports the plugin system.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from spade_core.models.base import MAX_BATCH_SIZE, ModelBackend
from spade_core.models.errors import ModelSpecError
from spade_core.models.openai_backend import OpenAIOptions
from spade_core.models.spec import FORMS, ModelSpec, local_source, parse_model_spec


@dataclass(frozen=True)
class LoadOptions:
    """How to load a backend: batch size and device for in-process models, request options for servers."""

    max_batch_size: int = MAX_BATCH_SIZE
    device: str | None = None
    openai: OpenAIOptions = field(default_factory=OpenAIOptions)


class BackendEntry(Protocol):
    """A model backend offered by name: ``load()`` imports and returns its factory."""

    def load(self) -> Callable[..., Any]: ...


def load_from(backends: Mapping[str, BackendEntry], spec: str | os.PathLike[str] | ModelSpec | None = None,
              options: LoadOptions | None = None) -> ModelBackend:
    """The backend ``spec`` names, built by the factory of that name in ``backends`` (see
    :mod:`spade_core.models.spec` for the grammar)."""
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    options = options or LoadOptions()
    name = "hf" if parsed.local else parsed.backend
    if name not in backends:
        known = ", ".join(sorted(backends)) or "none"
        raise ModelSpecError(f"unknown model backend {parsed.backend!r} in {str(parsed)!r}: use {FORMS} "
                             f"(backends loaded: {known})")
    factory = backends[name].load()
    if name == "hf":
        backend = factory(local_source(parsed), device=options.device, max_batch_size=options.max_batch_size)
    elif name == "openai":
        backend = factory(parsed.argument, base_url=parsed.base_url, options=options.openai)
    else:
        backend = factory(parsed.argument)
    if not isinstance(backend, ModelBackend):
        raise ModelSpecError(f"model backend {name!r} returned {type(backend).__name__}, not a ModelBackend")
    return backend
