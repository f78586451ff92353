"""The backends plugins contribute, looked up here: model backends (``spade_model_backends``) and trainer backends
(``spade_trainer_backends``). The model and training layers never import the plugin system; they take what is found
here (:func:`spade_core.models.resolve.load_from` builds a model from the backends passed to it)."""

from __future__ import annotations

import os
from collections.abc import Callable

from spade_core.models.base import ModelBackend
from spade_core.models.resolve import LoadOptions, load_from
from spade_core.models.spec import ModelSpec
from spade_core.plugins.contributions import ModelBackendSpec, TrainerBackendSpec
from spade_core.plugins.manager import PluginRegistry, get_plugins
from spade_core.training.backend import TrainerBackend
from spade_core.training.errors import UnknownTrainerBackendError


def model_backends(registry: PluginRegistry | None = None) -> dict[str, ModelBackendSpec]:
    """Every model backend the plugins offer, by name (the core's ``hf``, ``openai`` and ``vllm`` among them)."""
    return {spec.name: spec for spec in (registry or get_plugins()).collect_flat("spade_model_backends")}


def load_backend(spec: str | os.PathLike[str] | ModelSpec | None = None, options: LoadOptions | None = None,
                 ) -> ModelBackend:
    """The backend ``spec`` names, loaded from the plugins' model backends (see :mod:`spade_core.models.spec`)."""
    return load_from(model_backends(), spec, options)


def find_trainer_backend(name: str, registry: PluginRegistry | None = None) -> Callable[..., TrainerBackend]:
    """The factory of the trainer backend plugin called ``name`` (imported on first use)."""
    factory: Callable[..., TrainerBackend] = find_trainer_backend_spec(name, registry).load()
    return factory


def find_trainer_backend_spec(name: str, registry: PluginRegistry | None = None) -> TrainerBackendSpec:
    """The :class:`~spade_core.plugins.contributions.TrainerBackendSpec` of the backend plugin called ``name``."""
    specs: list[TrainerBackendSpec] = (registry or get_plugins()).collect_flat("spade_trainer_backends")
    for spec in specs:
        if spec.name == name:
            return spec
    known = sorted(spec.name for spec in specs)
    raise UnknownTrainerBackendError(
        f"no trainer backend named {name!r}; installed: {known or 'none'} (a plugin adds one through the "
        "'spade_trainer_backends' hook)"
    )
