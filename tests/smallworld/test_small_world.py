"""The small world end to end (design programs -> extraction -> validation -> registry -> episode runner -> regret
-> designer reward -> per-role advantages -> reference trainer): the designer's objective pushes in the right
direction. Directions only, never timings; the comparison with the uniform designer and the fixed pool over seeds,
with confidence intervals, is benchmarks/bench_small_world.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.smallworld.family import LETTERS, THIRDS
from spade_core.smallworld.policy import agent_prompt_ids, build_policy
from spade_core.smallworld.summary import directions
from spade_core.smallworld.world import WorldConfig, run_world

ITERATIONS = 12


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_policy(tmp_path_factory.mktemp("small-world") / "policy", seed=0)


@pytest.fixture(scope="module")
def designed(policy: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    return run_world(WorldConfig(arm="designed", seed=0, iterations=ITERATIONS), policy,
                     tmp_path_factory.mktemp("designed"))


@pytest.fixture(scope="module")
def fixed(policy: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    return run_world(WorldConfig(arm="fixed", seed=0, iterations=ITERATIONS), policy, tmp_path_factory.mktemp("fixed"))


def test_every_iteration_went_through_the_whole_pipeline(designed: list[dict]) -> None:
    assert len(designed) == ITERATIONS
    for r in designed:
        played = [d for d in r["designs"] if d["regret"] is not None]
        assert r["agent_tokens"] > 0 and played and all(d["gate"] and d["status"] == "accepted" for d in played)
        assert all(d["reward"] is not None for d in r["designs"])


def test_the_designer_moves_toward_regret_and_away_from_trivial_and_impossible(designed: list[dict]) -> None:
    """Regret rises while the designer finds the edge (it falls again once the agent has mastered it: the edge moves),
    and trivial and impossible designs become rarer."""
    d = directions(designed)
    assert d["regret_peak"] > d["regret_early"]
    assert d["waste_late"] < d["waste_early"]


def test_the_agent_learns_more_from_designed_environments_than_from_a_fixed_pool(designed: list[dict],
                                                                                 fixed: list[dict]) -> None:
    """Same seed, same agent episodes: held-out success (no hint) averaged over the run is at least the fixed
    pool's, and the agent ends far above where it started."""
    assert sum(r["agent_tokens"] for r in designed) > 0 and sum(r["agent_tokens"] for r in fixed) > 0
    assert directions(designed)["held_out_mean"] >= directions(fixed)["held_out_mean"]
    assert designed[-1]["held_out_success"] > designed[0]["held_out_success"] + 0.3


def test_the_format_pass_teaches_copying_with_and_without_the_hint_and_the_relay_shape(policy: Path) -> None:
    """A trivial design must be trivial for the format-trained agent with the hint too (regret 0, not negative),
    and a relay must be answered in its shape (a code letter, then the letter) before self-play starts."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(policy)
    model = AutoModelForCausalLM.from_pretrained(policy).eval()

    def greedy(observation: str, hint: str | None) -> str:
        ids = agent_prompt_ids(tokenizer, observation, hint)
        with torch.no_grad():
            out = model.generate(torch.tensor([ids]), max_new_tokens=4, do_sample=False)
        return tokenizer.decode(out[0, len(ids):], skip_special_tokens=True).strip()

    hint = {letter: f"in the {THIRDS[LETTERS.index(letter) // 4]} third" for letter in LETTERS}
    cases = [(band, letter) for band in range(4) for letter in LETTERS]
    assert sum(greedy(f"repeat {b} {x}", None) == x for b, x in cases) >= 46
    assert sum(greedy(f"repeat {b} {x}", hint[x]) == x for b, x in cases) >= 46
    shapes = [greedy(f"relay {b} {x}", None).split() for b, x in cases]
    assert sum(len(w) == 2 and w[0] in LETTERS and w[1] == x for w, (_, x) in zip(shapes, cases)) >= 46
