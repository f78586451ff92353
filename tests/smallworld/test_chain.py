"""The Chain family through the real pipeline: a relay of depth d answers the chain's first d letters, then the
letter shown; the landscape is as the README states (known links trivial, the next one the edge, beyond impossible)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.gym_bridge import make_env
from spade_core.smallworld.family import (
    CHAIN,
    CHAIN_FAMILY,
    CHAIN_MODES,
    DEPTHS,
    FAMILIES,
    LETTERS,
    LISTED_HINT,
    REPEAT_HINT,
    Design,
    all_designs,
    chain_answer,
    edge_designs,
    edit_design,
    knob_values,
    listed_hint,
    third_of,
)
from spade_core.smallworld.language import design_reply, extract_design, opening, render_design
from spade_core.smallworld.world import ValidatedFamily, validate_family


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> ValidatedFamily:
    return validate_family(CHAIN_FAMILY, tmp_path_factory.mktemp("chain"))


def test_the_chain_space_is_mostly_not_at_the_edge() -> None:
    designs = all_designs(CHAIN_FAMILY)
    assert len(designs) == 4 * len(CHAIN_MODES) * DEPTHS == 48 and len(set(designs)) == 48
    assert len(edge_designs(CHAIN_FAMILY)) == 4 * DEPTHS  # relays; at any time one depth of them is the edge
    assert all(d.in_range for d in designs) and not Design(0, 4, 1, CHAIN_FAMILY).in_range  # no leaky relay


def test_every_chain_design_is_accepted(validated: ValidatedFamily) -> None:
    assert validated.env_ids == {d: f"spade/{d.name}-v0" for d in all_designs(CHAIN_FAMILY)}


@pytest.mark.parametrize("design", all_designs(CHAIN_FAMILY)[::5])
def test_a_chain_design_round_trips_through_the_language(design: Design) -> None:
    assert extract_design(render_design(design)) == design
    assert extract_design(opening(CHAIN_FAMILY) + f" band={design.band} mode={design.mode} "
                          f"depth={design.depth}") == design


def _play(validated: ValidatedFamily, design: Design, policy, *, hinted: bool, episodes: int = 48) -> float:
    env = make_env(validated.env_ids[design], store=validated.store_path)
    rng, wins = random.Random(0), 0
    try:
        for seed in range(episodes):
            obs, _ = env.reset(seed=20_000 + seed, options={"hint": True} if hinted else None)
            hint = env.unwrapped.privileged_hint() if hinted else None
            wins += bool(env.step(policy(obs, hint, rng))[4]["success"])
    finally:
        env.close()
    return wins / episodes


def _knows(links: int):
    """An agent that knows the chain's first ``links`` letters and draws the rest (for the last one, from the letters
    a hint lists)."""
    def policy(obs: str, hint: str | None, rng: random.Random) -> str:
        kind, _, depth, shown = obs.split()
        if kind != "relay":
            return shown if kind == "repeat" else rng.choice(LETTERS)
        letters = []
        for k in range(int(depth)):
            pool = LETTERS
            if k == int(depth) - 1 and hint:
                assert hint.startswith(LISTED_HINT), hint
                pool = hint[len(LISTED_HINT):].split()
            letters.append(CHAIN[k] if k < links else rng.choice(pool))
        return " ".join([*letters, shown])
    return policy


def test_a_relay_answers_the_chain_then_the_letter(validated: ValidatedFamily) -> None:
    env = make_env(validated.env_ids[Design(1, 1, 2, CHAIN_FAMILY)], store=validated.store_path)
    try:
        shown = set()
        for seed in range(30):
            obs, _ = env.reset(seed=seed)
            kind, band, depth, letter = obs.split()
            assert (kind, band, depth) == ("relay", "1", "2")
            shown.add(letter)
            assert env.step(chain_answer(2, letter))[4]["success"]
            env.reset(seed=seed)
            assert not env.step(chain_answer(1, letter))[4]["success"]
    finally:
        env.close()
    assert len(shown) >= 10  # no constant answers a relay


def test_the_edge_moves_with_what_the_agent_knows(validated: ValidatedFamily) -> None:
    """Knowing n links: depth <= n trivial; depth n + 1 about 1/12 unhinted and 1/4 hinted; beyond near 0."""
    for known in range(DEPTHS):
        for depth in range(1, DEPTHS + 1):
            design = Design(0, 1, depth, CHAIN_FAMILY)
            unhinted = _play(validated, design, _knows(known), hinted=False)
            hinted = _play(validated, design, _knows(known), hinted=True)
            if depth <= known:
                assert unhinted == hinted == 1.0
            elif depth == known + 1:
                assert unhinted <= 0.2 and 0.12 <= hinted <= 0.45, (known, depth, unhinted, hinted)
            else:
                assert unhinted <= 0.05 and hinted <= 0.1, (known, depth, unhinted, hinted)


def test_a_relay_hint_lists_its_links_third_and_a_repeat_hint_holds_no_answer(validated: ValidatedFamily) -> None:
    """The hints the environments give are the ones the format pass and the format check use."""
    for depth in range(1, DEPTHS + 1):
        for mode, expected in ((0, REPEAT_HINT), (1, listed_hint(third_of(CHAIN[depth - 1])))):
            env = make_env(validated.env_ids[Design(2, mode, depth, CHAIN_FAMILY)], store=validated.store_path)
            try:
                for seed in range(6):
                    obs, _ = env.reset(seed=seed, options={"hint": True})
                    assert env.unwrapped.privileged_hint() == expected
                    assert mode == 1 or obs.split()[-1] not in expected.split()  # a repeat's: never its answer
            finally:
                env.close()


@settings(max_examples=200, deadline=None)
@given(family=st.sampled_from(FAMILIES), index=st.integers(0, 47), seed=st.integers(0, 2**32))
def test_an_edit_changes_exactly_one_knob_to_another_value_in_range(family: str, index: int, seed: int) -> None:
    designs = all_designs(family)
    design = designs[index % len(designs)]
    edited = edit_design(design, random.Random(seed))
    changed = [knob for knob in knob_values(family) if getattr(edited, knob) != getattr(design, knob)]
    assert len(changed) == 1 and edited.in_range and edited.family == family


def test_edits_reach_every_neighbour_of_a_design_and_nothing_else() -> None:
    design = Design(1, 1, 1, CHAIN_FAMILY)
    rng = random.Random(0)
    reached = {edit_design(design, rng) for _ in range(2000)}
    neighbours = {d for d in all_designs(CHAIN_FAMILY)
                  if sum(getattr(d, k) != getattr(design, k) for k in knob_values(CHAIN_FAMILY)) == 1}
    assert reached == neighbours and len(neighbours) == 3 + 3 + 2  # bands, modes, depths


@pytest.mark.parametrize("design", all_designs(CHAIN_FAMILY)[::7])
def test_the_designer_reply_is_the_program_after_its_opening(design: Design) -> None:
    assert extract_design(opening(CHAIN_FAMILY) + design_reply(design)) == design
