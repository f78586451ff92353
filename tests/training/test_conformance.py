"""Every trainer backend (reference, TRL, and the minimal one a third party would start from) passes the same
conformance checks, and the checks catch a backend that breaks the contract."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from spade_core.models.hf_generator import HFGenerator
from spade_core.plugins.backends import find_trainer_backend_spec
from spade_core.training.conformance import TrainerConformanceError, check_trainer_backend
from spade_core.training.settings import SharedTrainSettings

sys.path.insert(0, str(Path(__file__).parent))
from minimal_backend import MinimalTrainer, build_minimal_trainer

ALL_CHECKS = ["factory signature", "surface", "input checks", "update", "save/load", "close", "separate generator"]
LEARNING_RATE = 0.05  # one update moves the tiny model far past the push-verification tolerance


def bundled(name: str, tmp_path: Path) -> tuple[Any, dict[str, Any]]:
    spec = find_trainer_backend_spec(name)
    shared = SharedTrainSettings(learning_rate=LEARNING_RATE, seed=0, max_completion_tokens=16, run_dir=str(tmp_path))
    return spec.load(), spec.settings_from(shared)


@pytest.mark.parametrize("name", ["reference", "trl"])
def test_bundled_backends_conform(name: str, tiny_model_dir: Path, tmp_path: Path) -> None:
    factory, settings = bundled(name, tmp_path)
    passed = check_trainer_backend(factory, tiny_model_dir, config=settings,
                                   external_generator=lambda: HFGenerator.from_pretrained(tiny_model_dir),
                                   workdir=tmp_path)
    assert passed == ALL_CHECKS


def test_the_minimal_backend_conforms(tiny_model_dir: Path, tmp_path: Path) -> None:
    passed = check_trainer_backend(build_minimal_trainer, tiny_model_dir, config={"learning_rate": LEARNING_RATE},
                                   external_generator=lambda: HFGenerator.from_pretrained(tiny_model_dir),
                                   workdir=tmp_path)
    assert passed == ALL_CHECKS


class UnverifiedPushes(MinimalTrainer):
    """Pushes its weights but never checks that they arrived."""

    def update(self, trajectories: Any, advantages: Any) -> dict[str, float]:
        generator, self._generator = self._generator, self._own
        try:
            metrics = super().update(trajectories, advantages)
        finally:
            self._generator = generator
        self._generator.sync_weights(dict(self.model.state_dict()))
        return metrics


def test_an_unverified_push_is_caught(tiny_model_dir: Path, tmp_path: Path) -> None:
    def factory(model: Any, tokenizer: Any = None, config: Any = None, *, generator: Any = None,
                data_parallel: Any = None) -> UnverifiedPushes:
        return UnverifiedPushes(model, tokenizer, LEARNING_RATE, generator)

    with pytest.raises(TrainerConformanceError, match="never reached the generator went unnoticed"):
        check_trainer_backend(factory, tiny_model_dir, workdir=tmp_path,
                              external_generator=lambda: HFGenerator.from_pretrained(tiny_model_dir))


def test_a_factory_without_the_loop_keywords_is_caught(tiny_model_dir: Path) -> None:
    def factory(model: Any, tokenizer: Any = None, config: Any = None) -> MinimalTrainer:
        return MinimalTrainer(model, tokenizer, LEARNING_RATE)

    with pytest.raises(TrainerConformanceError, match="factory signature.*generator"):
        check_trainer_backend(factory, tiny_model_dir)


class ForgetsTheStep(MinimalTrainer):
    def load(self, directory: Any) -> dict[str, Any]:
        state = super().load(directory)
        self._step = 0
        return state


def test_a_checkpoint_that_loses_the_step_is_caught(tiny_model_dir: Path, tmp_path: Path) -> None:
    def factory(model: Any, tokenizer: Any = None, config: Any = None, **_: Any) -> ForgetsTheStep:
        return ForgetsTheStep(model, tokenizer, LEARNING_RATE)

    with pytest.raises(TrainerConformanceError, match="save/load.*step 0, saved at 1"):
        check_trainer_backend(factory, tiny_model_dir, workdir=tmp_path)
