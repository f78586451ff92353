"""The ``model`` section's generator knobs (``kv_cache_mb``, ``decode_threads``) reach every local engine a run
builds: the trainer's own sampler (reference backend) and a separate ``hf_engine`` copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.models.base import DEFAULT_DECODE_THREADS
from spade_core.models.kv_sessions import MIB
from spade_core.selfplay import wiring
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.typed_config import ConfigError, load_config


def _config(model_dir: Path, *extra: str) -> SelfPlayConfig:
    return load_config(SelfPlayConfig, None, [f"model.spec={model_dir}", "model.torch_threads=0", *extra])


def test_the_default_decodes_on_the_shared_default_thread_count(tiny_model_dir: Path, tmp_path: Path) -> None:
    trainer = wiring.build_trainer(_config(tiny_model_dir), tmp_path)
    assert trainer.generator.decode_threads == DEFAULT_DECODE_THREADS


@pytest.mark.parametrize("generator", ["hf", "hf_engine"])
def test_decode_threads_and_the_kv_budget_reach_the_engine_that_samples(tiny_model_dir: Path, tmp_path: Path,
                                                                         generator: str) -> None:
    config = _config(tiny_model_dir, f"model.generator={generator}", "model.decode_threads=3",
                     "model.kv_cache_mb=8")
    trainer = wiring.build_trainer(config, tmp_path)
    engine = trainer.generator
    assert engine.decode_threads == 3
    assert engine.sessions.budget_bytes == 8 * MIB
    if generator == "hf_engine":  # a separate copy: the trainer's own scorer gets the same knobs
        assert engine is not trainer._own_generator and trainer._own_generator.decode_threads == 3


def test_a_negative_decode_thread_count_is_refused_naming_the_knob(tiny_model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises((ConfigError, ValueError), match="decode_threads must be >= 0"):
        wiring.build_trainer(_config(tiny_model_dir, "model.decode_threads=-1"), tmp_path)
