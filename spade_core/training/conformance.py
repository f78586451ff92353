"""Does a trainer backend keep the contract the self-play loop relies on? Like Gymnasium's ``check_env``:
:func:`check_trainer_backend` builds the backend on a (tiny) model and makes every call the loop makes, the way it
makes them, raising :class:`TrainerConformanceError` with what was observed and how to fix it.

What is checked (:class:`~spade_core.training.backend.TrainerBackend` states the contract):

1. the factory binds ``factory(model, tokenizer, config=..., generator=..., data_parallel=...)``;
2. the trainer has a ``name``, ``step == 0``, a ``generator`` with a ``tokenizer`` and ``generate``/``chat``/
   ``sync_weights`` (and ``score``, which these checks use to compare weights), and ``close``;
3. ``update`` refuses mismatched or non-finite advantages (``TrainingInputError``) without counting a step;
4. ``update`` returns finite scalar metrics, counts the step, and afterwards ``generator`` scores with the new
   weights;
5. ``save(dir, loop_state=...)`` then ``load(dir)`` on a fresh trainer restores the step, the loop state and the
   weights the generator samples from;
6. ``close()`` may be called twice;
7. with a separate generator (``generator=``, as ``model.generator=hf_engine``/``vllm`` passes): the trainer samples
   through it, pushes every update to it, and a push that does not reach it raises ``WeightSyncMismatchError``.
"""

from __future__ import annotations

import inspect
import math
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from spade_core.errors import SpadeError
from spade_core.models.base import SamplingParams
from spade_core.rollout.trajectory import Trajectory, generation_trajectory
from spade_core.training.backend import TrainerBackend
from spade_core.training.errors import TrainingInputError
from spade_core.training.weight_sync import WeightSyncMismatchError

Factory = Callable[..., Any]
GENERATOR_METHODS = ("generate", "chat", "sync_weights")
PROMPTS = ("Count to three.", "Name a colour.")
LOOP_STATE = {"iteration": 1, "note": "conformance"}
RESTORE_TOLERANCE = 1e-4
"""Largest per-token logprob difference between the saved trainer and a fresh one that loaded its checkpoint."""


class TrainerConformanceError(SpadeError):
    """A trainer backend breaks the contract the self-play loop relies on."""

    def __init__(self, check: str, observed: str, fix: str) -> None:
        super().__init__(f"trainer backend fails {check!r}: {observed}. Fix: {fix}")
        self.check = check


def check_trainer_backend(factory: Factory, model_dir: str | Path, *, config: Any = None,
                          external_generator: Callable[[], Any] | None = None,
                          workdir: str | Path | None = None) -> list[str]:
    """Run every check on the backend ``factory`` builds from ``model_dir`` (a ``save_pretrained`` folder; each
    trainer gets a fresh copy of its weights) with its own ``config``. ``external_generator`` builds a separate
    sampler over the same weights (e.g. ``HFGenerator.from_pretrained``) for check 7; without it that check is not
    run. Pick a ``config`` whose learning rate moves a tiny model visibly in one update. Returns the names of the
    checks passed."""
    passed: list[str] = []
    _check_signature(factory)
    passed.append("factory signature")
    with tempfile.TemporaryDirectory(prefix="spade-conformance-", dir=workdir) as tmp:
        trainer = _build(factory, model_dir, config)
        _check_surface(trainer)
        passed.append("surface")
        trajectories = _trajectories(trainer.generator)
        _check_refusals(trainer, trajectories)
        passed.append("input checks")
        probe = [list(t.token_ids) for t in trajectories]
        before = trainer.generator.score(probe)
        _check_update(trainer, trajectories)
        after = trainer.generator.score(probe)
        if _max_diff(before, after) == 0.0:
            _fail("update", "after update() the generator scores the probe exactly as before",
                  "make `generator` sample from the updated weights (share the module, or push them with "
                  "generator.sync_weights after every update)")
        passed.append("update")
        checkpoint = trainer.save(Path(tmp) / "checkpoint", loop_state=LOOP_STATE)
        _check_restore(factory, model_dir, config, checkpoint, probe, after)
        passed.append("save/load")
        trainer.close()
        trainer.close()
        passed.append("close")
        if external_generator is not None:
            _check_external(factory, model_dir, config, external_generator, trajectories)
            passed.append("separate generator")
    return passed


def _fail(check: str, observed: str, fix: str) -> None:
    raise TrainerConformanceError(check, observed, fix)


def _check_signature(factory: Factory) -> None:
    try:
        inspect.signature(factory).bind("model", "tokenizer", config=None, generator=None, data_parallel=None)
    except TypeError as exc:
        _fail("factory signature", f"factory{inspect.signature(factory)} does not bind: {exc}",
              "accept (model, tokenizer=None, config=None, *, generator=None, data_parallel=None, **overrides): "
              "the self-play loop passes generator= with a separate sampler and data_parallel= under torchrun")


def _load(model_dir: str | Path) -> tuple[Any, Any]:
    from spade_core.models.loading import load_model

    loaded = load_model(model_dir, device="cpu", dtype="float32")
    return loaded.model, loaded.tokenizer


def _build(factory: Factory, model_dir: str | Path, config: Any, **extra: Any) -> Any:
    model, tokenizer = _load(model_dir)
    return factory(model, tokenizer, config=config, **extra)


def _check_surface(trainer: Any) -> None:
    missing = [name for name in ("name", "generator", "step", "update", "save", "load", "close")
               if not hasattr(trainer, name)]
    if missing or not isinstance(trainer, TrainerBackend):
        _fail("surface", f"{type(trainer).__name__} lacks {missing or 'a TrainerBackend member'}",
              "implement every member of spade_core.training.backend.TrainerBackend")
    if not isinstance(trainer.name, str) or not trainer.name:
        _fail("surface", f"name is {trainer.name!r}", "set `name` to the backend's plugin name")
    if trainer.step != 0:
        _fail("surface", f"a new trainer reports step {trainer.step!r}", "start `step` at 0")
    generator = trainer.generator
    lacking = [m for m in GENERATOR_METHODS if not callable(getattr(generator, m, None))]
    if lacking:
        _fail("surface", f"the generator ({type(generator).__name__}) has no {lacking}",
              "return a ModelBackend that can also score sequences (spade_core.models.hf_generator.HFGenerator)")
    if not callable(getattr(generator, "score", None)):
        _fail("surface", f"the generator ({type(generator).__name__}) cannot score sequences, so these checks cannot "
              "compare weights", "run the checks with the backend's HF-sampling configuration (HFGenerator.score)")
    if getattr(generator, "tokenizer", None) is None:
        _fail("surface", "generator.tokenizer is missing", "expose the policy's tokenizer as generator.tokenizer: "
              "the episode runner formats chats with it and the loop decodes transcripts with it")


def _trajectories(generator: Any) -> list[Trajectory]:
    params = SamplingParams(max_new_tokens=6, temperature=1.0, seed=0)
    generations = generator.chat([[{"role": "user", "content": text}] for text in PROMPTS], params)
    out = []
    for i, generation in enumerate(generations):
        if generation.error or not generation.completion_ids:
            _fail("surface", f"the generator wrote nothing for prompt {i} ({generation.error or 'no tokens'})",
                  "sample at least one token per prompt")
        out.append(generation_trajectory(generation, role="agent", group_id="conformance", episode_id=f"c{i}",
                                         reward=float(i == 0), success=i == 0))
    return out


def _check_refusals(trainer: Any, trajectories: list[Trajectory]) -> None:
    for advantages, what in (([1.0], "one advantage for two trajectories"),
                             ([math.nan, 0.0], "a NaN advantage"), ([math.inf, 0.0], "an infinite advantage")):
        try:
            trainer.update(trajectories, advantages)
        except TrainingInputError:
            continue
        except Exception as exc:  # the wrong error type is the finding
            _fail("input checks", f"update() with {what} raised {type(exc).__name__}: {exc}",
                  "raise spade_core.training.errors.TrainingInputError (see backend.trainable_items)")
        _fail("input checks", f"update() accepted {what}",
              "check inputs before training (spade_core.training.backend.trainable_items)")
    if trainer.step != 0:
        _fail("input checks", f"refused updates moved step to {trainer.step}", "count a step only when it is taken")


def _check_update(trainer: Any, trajectories: list[Trajectory]) -> None:
    metrics = trainer.update(trajectories, [1.0, -1.0])
    if not isinstance(metrics, Mapping):
        _fail("update", f"update() returned {type(metrics).__name__}", "return a dict of scalar metrics")
    bad = {k: v for k, v in metrics.items() if not isinstance(k, str) or isinstance(v, bool)
           or not isinstance(v, int | float) or not math.isfinite(v)}
    if bad:
        _fail("update", f"update() returned non-scalar or non-finite metrics {bad}",
              "return only finite numbers (the loop writes them to metrics.jsonl)")
    if trainer.step != 1:
        _fail("update", f"step is {trainer.step} after one update", "count each update() call once")


def _check_restore(factory: Factory, model_dir: str | Path, config: Any, checkpoint: Any, probe: list[list[int]],
                   trained: list[list[float]]) -> None:
    if not isinstance(checkpoint, Path) or not checkpoint.exists():
        _fail("save/load", f"save() returned {checkpoint!r}", "write the checkpoint and return its Path")
    fresh = _build(factory, model_dir, config)
    try:
        state = fresh.load(checkpoint)
        if state != LOOP_STATE:
            _fail("save/load", f"load() returned loop state {state!r}, saved {LOOP_STATE!r}",
                  "store loop_state in the checkpoint as JSON and return it from load()")
        if fresh.step != 1:
            _fail("save/load", f"a restored trainer reports step {fresh.step}, saved at 1", "restore `step`")
        diff = _max_diff(fresh.generator.score(probe), trained)
        if diff > RESTORE_TOLERANCE:
            _fail("save/load", f"the restored generator scores {diff:.2e} nats/token away from the saved trainer",
                  "restore every trained weight, and make the generator sample from them after load()")
    finally:
        fresh.close()


class _DroppedPushes:
    """A generator whose weight pushes never arrive (what a silently failing push looks like)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = f"dropped-pushes({getattr(inner, 'name', 'generator')})"
        self.tokenizer = inner.tokenizer

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.inner, attr)

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        del state_dict


def _check_external(factory: Factory, model_dir: str | Path, config: Any, make: Callable[[], Any],
                    trajectories: list[Trajectory]) -> None:
    generator = make()
    trainer = _build(factory, model_dir, config, generator=generator)
    try:
        if trainer.generator is not generator:
            _fail("separate generator", "the trainer does not sample through the generator it was given",
                  "use generator= as `generator` (the loop samples rollouts with trainer.generator)")
        probe = [list(t.token_ids) for t in trajectories]
        before = generator.score(probe)
        trainer.update(trajectories, [1.0, -1.0])
        if _max_diff(before, generator.score(probe)) == 0.0:
            _fail("separate generator", "after update() the separate generator still has the old weights",
                  "push the weights with generator.sync_weights after every update "
                  "(spade_core.training.weight_sync.push_and_verify)")
    finally:
        trainer.close()
    dropped = _build(factory, model_dir, config, generator=_DroppedPushes(make()))
    try:
        dropped.update(trajectories, [1.0, -1.0])
    except WeightSyncMismatchError:
        return
    finally:
        dropped.close()
    _fail("separate generator", "a weight push that never reached the generator went unnoticed",
          "verify every push on a probe batch (spade_core.training.weight_sync.push_and_verify) and raise "
          "WeightSyncMismatchError when the generator disagrees")


def _max_diff(a: list[list[float]], b: list[list[float]]) -> float:
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b, strict=True)):
        return math.inf
    return max((abs(x - y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True)), default=0.0)
