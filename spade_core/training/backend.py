"""The trainer-backend interface every backend implements (reference PyTorch, TRL; docs/design.md §6).

A backend owns the policy's trainable weights and a :class:`~spade_core.models.base.ModelBackend` generator that
samples from them. The core drives it:

1. the episode runner plays episodes with ``backend.generator`` (formatting chats with ``generator.tokenizer``)
   and returns trajectories;
2. the core computes advantages (``spade_core.training.advantages``) per role;
3. ``backend.update(trajectories, advantages)`` takes the optimiser step(s) and then makes the generator sample
   from the new weights (a shared module, or a push through ``generator.sync_weights`` that is verified on a probe
   batch: :func:`spade_core.training.weight_sync.push_and_verify`), returning metrics;
4. ``backend.save(dir, loop_state=...)`` / ``backend.load(dir)`` checkpoint everything needed to resume exactly;
5. ``backend.close()`` when the run ends (always called; release engines, followers, temporary files).

Backends are plugins (looked up by :func:`spade_core.plugins.backends.find_trainer_backend`): a
``spade_trainer_backends`` hook returns
``TrainerBackendSpec(name, factory="pkg.module:callable")``. The self-play loop calls the factory as
``factory(model, tokenizer, config=settings, generator=engine, data_parallel=group)``: ``model`` is a loaded model
(or a ``save_pretrained`` path), ``config`` the backend's own config dataclass or a mapping of its fields,
``generator`` (passed only with ``model.generator=hf_engine|vllm`` or Ray generator actors) a separate sampling
engine the backend must sample through and push every update to, and ``data_parallel``
(:class:`~spade_core.training.data_parallel.DataParallel`, passed only under torchrun/accelerate) this process's
place among several. :func:`spade_core.training.conformance.check_trainer_backend` checks all of it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from spade_core.models.base import ModelBackend
from spade_core.rollout.trajectory import Trajectory
from spade_core.training.errors import TrainingConfigError, TrainingInputError


@runtime_checkable
class TrainerBackend(Protocol):
    """What the self-play loop needs from a trainer."""

    name: str

    @property
    def generator(self) -> ModelBackend:
        """A generator that samples from the current policy weights (synced after every update). Its ``tokenizer``
        is the policy's; a separate engine passed as the factory's ``generator=`` is returned as is."""

    @property
    def step(self) -> int:
        """Number of completed :meth:`update` calls (restored by :meth:`load`)."""

    def update(self, trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> dict[str, float]:
        """One policy update from trajectories and their per-trajectory advantages; returns scalar metrics.

        Only ``loss_mask == 1`` tokens carry gradient; untrainable trajectories (failures, nothing generated) are
        skipped. After it returns, :attr:`generator` samples from the updated weights.
        """

    def save(self, directory: str | Path, *, loop_state: Mapping[str, Any] | None = None) -> Path:
        """Write a checkpoint (weights, optimiser, RNG states, ``loop_state`` JSON) atomically; return its path."""

    def load(self, directory: str | Path) -> dict[str, Any]:
        """Restore a checkpoint written by :meth:`save`; return its ``loop_state``."""

    def close(self) -> None:
        """Release what the backend holds (engines, data-parallel followers, temporary files); may be called twice."""


# -- what every backend factory and update() shares -------------------------------------------------------------
def reject_unknown_settings(cls: type, keys: Any, label: str) -> None:
    """Raise :class:`TrainingConfigError` naming the keys that are not fields of the dataclass ``cls``."""
    known = set(cls.__dataclass_fields__)
    unknown = sorted(set(keys) - known)
    if unknown:
        raise TrainingConfigError(f"unknown {label} setting(s) {unknown}; known: {sorted(known)}")


def backend_config(cls: type, config: Any, overrides: Mapping[str, Any], label: str) -> Any:
    """The factory's config: ``cls()`` for ``None``, an instance as is, or ``cls.from_mapping``; then single-field
    ``overrides``."""
    if config is None:
        cfg = cls()
    elif isinstance(config, cls):
        cfg = config
    elif isinstance(config, Mapping):
        cfg = cls.from_mapping(config)
    else:
        raise TrainingConfigError(f"config must be a {cls.__name__} or a mapping, got {type(config).__name__}")
    if overrides:
        reject_unknown_settings(cls, overrides, label)
        cfg = dataclasses.replace(cfg, **overrides)
    return cfg


def load_policy(model: Any, tokenizer: Any, *, factory: str) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a ``save_pretrained`` folder is loaded in fp32; a loaded model needs its tokenizer."""
    if isinstance(model, (str, Path)):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        path = Path(model)
        if not (path / "config.json").exists():
            raise TrainingConfigError(f"{path}: not a model directory (no config.json); pass a save_pretrained folder")
        tokenizer = tokenizer or AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    if tokenizer is None:
        raise TrainingConfigError(f"{factory}: pass the tokenizer with a loaded model")
    return model, tokenizer


def trainable_items(trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> list[tuple[Trajectory, float]]:
    """The trainable trajectories with their advantages, after checking the two lists fit and are finite."""
    if len(trajectories) != len(advantages):
        raise TrainingInputError(f"update: {len(trajectories)} trajectories but {len(advantages)} advantages")
    for i, a in enumerate(advantages):
        if not math.isfinite(float(a)):
            raise TrainingInputError(f"update: advantage {i} is {a!r}; advantages must be finite")
    return [(t, float(a)) for t, a in zip(trajectories, advantages) if t.trainable]
