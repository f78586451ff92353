"""Kept keys and values between generate calls: the store's rules, and generations equal to the full-history path."""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import spade_core  # noqa: F401 - registers the bundled spade/* environments
from spade_core.models.base import SamplingParams
from spade_core.models.hf_generator import HFGenerator
from spade_core.models.kv_sessions import KVSessions
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig

MULTI_TURN_GAME = "spade/Mastermind-v0"  # a bundled game whose episodes last many turns
ONE_TURN_GAME = "spade/ArithmeticChain-v0"


def states(length: int, fill: float = 0.0) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Two layers of keys/values for ``length`` positions: 2 heads x 4 dims x 4 bytes x 2 x 2 = 128 bytes a token."""
    return [(torch.full((2, length, 4), fill), torch.full((2, length, 4), fill)) for _ in range(2)]


def common_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


@settings(max_examples=60, deadline=None)
@given(kept=st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=12), min_size=1, max_size=5),
       prompt=st.lists(st.integers(0, 3), min_size=1, max_size=14), limit=st.integers(0, 14))
def test_match_finds_the_longest_kept_prefix(kept: list[list[int]], prompt: list[int], limit: int) -> None:
    store = KVSessions(1 << 30)
    for ids in kept:
        store.put(ids, states(len(ids)))
    match = store.match(prompt, limit)
    best = max(min(common_prefix(ids, prompt), limit) for ids in kept)
    assert match.length == best
    assert (match.key is None) == (best == 0)


def test_the_budget_drops_least_recently_used_entries_first() -> None:
    store = KVSessions(3 * 10 * 128)  # room for three 10-token sequences
    for first in range(3):
        assert store.put([first] * 10, states(10)) == 0
    reused = store.match([1] * 11, 10)
    store.put([1] * 10, store.take(reused.key).layers)  # sequence 1 used again: now the most recent
    assert store.put([7] * 10, states(10)) == 1  # sequence 0 is the least recently used
    assert store.match([0] * 11, 10).length == 0
    assert store.match([1] * 11, 10).length == store.match([2] * 11, 10).length == 10
    assert store.nbytes <= store.budget_bytes
    assert store.put([5] * 40, states(40)) == 0 and store.match([5] * 41, 40).length == 0  # larger than the budget


def test_a_new_weights_version_drops_everything_and_a_negative_budget_is_refused() -> None:
    store = KVSessions(1 << 20)
    store.check_version(1)
    store.put([1, 2, 3], states(3))
    store.check_version(1)
    assert len(store) == 1
    store.check_version(2)
    assert len(store) == 0 and store.nbytes == 0
    with pytest.raises(ValueError, match=">= 0 bytes"):
        KVSessions(-1)


def play(generator: HFGenerator, schedule: list[list[int]], params: SamplingParams,
         change_weights_at: int | None = None) -> list[list[tuple[list[int], list[float]]]]:
    """Multi-call sequences: ``schedule[call]`` names the live sequences; each prompt is the sequence's history (its
    earlier prompts and completions) plus a fresh user message, as the episode runner builds it."""
    histories: dict[int, list[int]] = {}
    calls = []
    for index, live in enumerate(schedule):
        if index == change_weights_at:
            with torch.no_grad():
                next(generator.model.parameters()).mul_(1.01)
        prompts = []
        for seq in live:
            message = generator.encode_chat([{"role": "user", "content": f"turn {index} of {seq}: " + "x " * seq}])
            prompts.append(histories.get(seq, []) + message)
        gens = generator.generate(prompts, SamplingParams(**{**params.__dict__, "seed": index}))
        for seq, prompt, gen in zip(live, prompts, gens):
            histories[seq] = prompt + gen.completion_ids
        calls.append([(g.completion_ids, g.logprobs) for g in gens])
    return calls


def assert_same(engine: list, full: list) -> None:
    for call_engine, call_full in zip(engine, full, strict=True):
        for (ids_e, lp_e), (ids_f, lp_f) in zip(call_engine, call_full, strict=True):
            assert ids_e == ids_f
            assert torch.allclose(torch.tensor(lp_e), torch.tensor(lp_f), atol=1e-4)


# sequences join and leave: 0 lives throughout, 1 ends early, 2 and 3 join late, 4 comes and goes alone
SCHEDULE = [[0, 1], [0, 1, 2], [0, 2], [0, 2, 3], [3], [0, 2, 3, 4], [0, 3], [0, 2, 3]]


@pytest.mark.parametrize("temperature", [0.0, 0.9])
def test_ragged_multi_call_sequences_equal_the_full_history_path(tiny_model_dir, temperature: float) -> None:
    engine = HFGenerator.from_pretrained(tiny_model_dir)
    full = HFGenerator(engine.model, engine.tokenizer, kv_cache_mb=0)
    params = SamplingParams(max_new_tokens=7, temperature=temperature, top_p=0.95)
    seen = engine.stats.prefilled_tokens
    assert_same(play(engine, SCHEDULE, params), play(full, SCHEDULE, params))
    assert engine.stats.reused_tokens > 0 and full.stats.reused_tokens == 0
    assert engine.stats.prefilled_tokens - seen < full.stats.prefilled_tokens / 2


def test_a_turn_prefills_only_its_new_tokens(tiny_model_dir) -> None:
    generator = HFGenerator.from_pretrained(tiny_model_dir)
    params = SamplingParams(max_new_tokens=5, temperature=1.0, seed=0)
    first = generator.generate([generator.encode_chat([{"role": "user", "content": "hello"}])], params)[0]
    message = generator.encode_chat([{"role": "user", "content": "and again"}])
    before = generator.stats.prefilled_tokens
    generator.generate([first.prompt_ids + first.completion_ids + message], params)
    # the new message, and the last sampled token (sampled, never fed back)
    assert generator.stats.prefilled_tokens - before == len(message) + 1


def test_a_tiny_budget_evicts_and_stays_exact(tiny_model_dir) -> None:
    engine = HFGenerator.from_pretrained(tiny_model_dir, kv_cache_mb=0.06)  # ~120 tokens of the tiny model
    full = HFGenerator(engine.model, engine.tokenizer, kv_cache_mb=0)
    params = SamplingParams(max_new_tokens=6, temperature=1.0)
    assert_same(play(engine, SCHEDULE, params), play(full, SCHEDULE, params))
    assert engine.stats.kv_evictions > 0
    assert engine.sessions.nbytes <= engine.sessions.budget_bytes


def test_weights_changed_between_calls_are_never_served_stale_states(tiny_model_dir) -> None:
    engine = HFGenerator.from_pretrained(tiny_model_dir)
    full = HFGenerator.from_pretrained(tiny_model_dir, kv_cache_mb=0)  # its own copy, changed the same way
    params = SamplingParams(max_new_tokens=6, temperature=0.0)
    assert_same(play(engine, SCHEDULE, params, change_weights_at=4), play(full, SCHEDULE, params, change_weights_at=4))
    engine.forget_prefix()
    assert len(engine.sessions) == 0


def test_episode_runner_on_a_bundled_multi_turn_game_equals_the_full_history_path(tiny_model_dir) -> None:
    engine = HFGenerator.from_pretrained(tiny_model_dir)
    full = HFGenerator(engine.model, engine.tokenizer, kv_cache_mb=0)
    # episodes of different lengths (a one-turn game among long ones): rows leave and others join mid-run
    rng = random.Random(0)
    specs = [EpisodeSpec(MULTI_TURN_GAME, seed=s, env_kwargs={"colours": rng.choice([4, 6, 8])}) for s in range(4)]
    specs[1:1] = [EpisodeSpec(ONE_TURN_GAME, seed=s, env_kwargs={"terms": 2, "digits": 1}) for s in range(2)]
    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=6, temperature=1.0), max_context_tokens=700,
                           max_concurrent_episodes=3)
    with_engine = EpisodeRunner(engine, config).run(specs, seed=3)
    without = EpisodeRunner(full, config).run(specs, seed=3)
    turns = [len(t.turns) for t in with_engine.trajectories]
    assert max(turns) >= 5 and len(set(turns)) > 1
    for a, b in zip(with_engine.trajectories, without.trajectories, strict=True):
        assert a.token_ids == b.token_ids
        assert torch.allclose(torch.tensor(a.logprobs), torch.tensor(b.logprobs), atol=1e-4)
    assert engine.stats.prefilled_tokens * 3 < full.stats.prefilled_tokens
