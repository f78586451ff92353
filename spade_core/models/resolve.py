"""Turn a model spec string into a backend: ``hf`` | ``hf:<dir or .gguf>`` | ``openai:<model>@<base_url>`` |
``vllm:<path>``. The name before the colon is any plugin's model backend."""

from __future__ import annotations

from typing import Any

from spade_core.errors import SpadeError
from spade_core.models.base import ModelBackend


class UnknownModelBackendError(SpadeError):
    """No loaded plugin provides a model backend of that name."""


def parse_model_spec(spec: str | None) -> tuple[str, str | None]:
    """``"hf:/models/x"`` -> ``("hf", "/models/x")``; ``None`` or ``"hf"`` -> the embedded default."""
    if not spec:
        return "hf", None
    name, sep, rest = spec.partition(":")
    return name, (rest or None) if sep else None


def load_backend(spec: str | None = None, **kwargs: Any) -> ModelBackend:
    """Instantiate the backend a spec names (plugins may add backends through ``spade_model_backends``)."""
    from spade_core.plugins import get_plugins

    name, argument = parse_model_spec(spec)
    backends = {b.name: b for b in get_plugins().collect_flat("spade_model_backends")}
    if name not in backends:
        raise UnknownModelBackendError(
            f"unknown model backend {name!r} in {spec!r}; available: {', '.join(sorted(backends)) or 'none'}"
        )
    factory = backends[name].load()
    if name == "openai" and argument and "@" in argument:
        model, _, base_url = argument.partition("@")
        return factory(model, base_url=base_url, **kwargs)
    return factory(argument, **kwargs)
