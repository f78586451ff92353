"""Sampling on Ray generator actors: batches split over the actors come back in order and equal local sampling,
every push reaches (and is verified on) every actor, and a killed actor is replaced with the latest weights."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the scale-out tests need Ray: pip install 'spade-rl[ray]'")

import torch

from spade_core.models.base import SamplingParams
from spade_core.models.hf_generator import HFGenerator
from spade_core.scale.ray_generation import RayGeneratorPool
from spade_core.training.weight_sync import push_and_verify

PROMPTS = [[5, 6, 7], [8, 9], [10, 11, 12, 13], [14], [15, 16]]
GREEDY = SamplingParams(max_new_tokens=4, temperature=0.0)


@pytest.fixture(scope="module")
def pool(ray_runtime, tiny_model_dir: Path):
    generators = RayGeneratorPool(str(tiny_model_dir), num_actors=2, actor_cpus=0.5, timeout_s=120.0)
    yield generators
    generators.shutdown()


@pytest.fixture()
def local(tiny_model_dir: Path) -> HFGenerator:
    return HFGenerator.from_pretrained(tiny_model_dir, device="cpu")


def _shifted_weights(generator: HFGenerator, scale: float) -> dict[str, torch.Tensor]:
    """The local engine's weights, every matrix scaled: a policy the actors have never seen."""
    with torch.no_grad():
        for value in generator.model.state_dict().values():
            if value.ndim == 2:
                value.mul_(scale)
    return {k: v.detach().clone() for k, v in generator.model.state_dict().items()}


def test_a_batch_split_over_actors_equals_local_sampling_in_order(pool, local) -> None:
    generations = pool.generate(PROMPTS, GREEDY)
    assert [g.prompt_ids for g in generations] == PROMPTS
    assert [g.completion_ids for g in generations] == [g.completion_ids for g in local.generate(PROMPTS, GREEDY)]
    chats = [[{"role": "user", "content": "hi"}], [{"role": "user", "content": "yo"}], [{"role": "user", "content": "x"}]]
    assert [g.completion_ids for g in pool.chat(chats, GREEDY)] == [g.completion_ids for g in local.chat(chats, GREEDY)]
    # a GRPO group split over the actors: each samples with its own seed, so the halves are not copies
    group = pool.generate([[20, 21, 22]] * 6, SamplingParams(max_new_tokens=6, seed=11))
    assert [tuple(g.completion_ids) for g in group[0::2]] != [tuple(g.completion_ids) for g in group[1::2]]
    assert pool.generate([], GREEDY) == []
    stats = pool.take_stats()
    assert [s["actor"] for s in stats] == [0, 1] and all(s["pid"] and s["engine"] == "hf" for s in stats)
    assert sum(s["sequences"] for s in stats) == len(PROMPTS) + 3 + 6
    assert all(s["tokens"] > 0 for s in stats)


def test_a_push_reaches_every_actor_and_is_verified_on_each(pool, local) -> None:
    probe = [[3, 4, 5, 6, 7], [8, 9, 10]]
    before = local.score(probe)
    pushed = _shifted_weights(local, 1.5)
    metrics, agreement = push_and_verify(pool, [dict(list(pushed.items())[:5]), dict(list(pushed.items())[5:])],
                                         probe=probe, before=before, trainer_scores=local.score, tolerance=1e-4)
    assert agreement is not None and agreement.ok and metrics["sync_engines"] == 2.0
    assert metrics["sync_update_shift"] > 1e-3  # the push changed what the actors score
    expected = local.score(probe)
    for scores in pool.score_each(probe):
        assert all(row == pytest.approx(want, abs=1e-5) for row, want in zip(scores, expected))
    assert [g.completion_ids for g in pool.generate(PROMPTS, GREEDY)] == [
        g.completion_ids for g in local.generate(PROMPTS, GREEDY)]


def test_a_killed_actor_is_replaced_with_the_latest_weights(pool, local) -> None:
    pushed = _shifted_weights(local, 0.7)
    pool.sync_weights(pushed)
    pool.take_stats()
    killed = pool.slots[1].location["pid"]
    os.kill(killed, signal.SIGKILL)
    generations = pool.generate(PROMPTS, GREEDY)  # actor 1's share is sampled again by its replacement
    assert [g.completion_ids for g in generations] == [g.completion_ids for g in local.generate(PROMPTS, GREEDY)]
    stats = pool.take_stats()
    assert stats[1]["replaced"] == 1 and pool.replaced == 1
    assert stats[1]["pid"] != killed
    probe = [[3, 4, 5, 6, 7]]
    # the replacement replayed the pushed weights: it scores like the pushed policy, not like the model folder
    assert pool.score_each(probe)[1][0] == pytest.approx(local.score(probe)[0], abs=1e-5)
