"""The Relay family through the real pipeline: every design validates and is stored; its difficulty is as stated."""

from __future__ import annotations

import random

import pytest

from spade_core.gym_bridge import make_env, open_store
from spade_core.smallworld.family import (
    LETTERS,
    PARTNERS,
    THIRDS,
    Design,
    all_designs,
    module_source,
)
from spade_core.validation import ValidationConfig, validate_many
from spade_core.validation.pipeline import record_outcome


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[Design, str]]:
    path = str(tmp_path_factory.mktemp("relay") / "registry.sqlite3")
    store = open_store(path)
    designs = all_designs()
    sources = [module_source(d) for d in designs]
    reports = validate_many([(d.name, s) for d, s in zip(designs, sources)], workers=2, store=store,
                            config=ValidationConfig())
    ids = {}
    for design, source, report in zip(designs, sources, reports):
        assert report.accepted, (design, report.failed_stage, [str(s) for s in report.stages if s.failed])
        ids[design] = record_outcome(store, source, report).env_id
    return path, ids


def test_every_design_is_accepted_and_stored_under_its_name(stored: tuple[str, dict[Design, str]]) -> None:
    _, ids = stored
    assert ids == {d: f"spade/{d.name}-v0" for d in all_designs()}
    assert {d.category for d in ids} == {"trivial", "edge", "impossible"}


def test_a_repeated_design_is_an_exact_duplicate(stored: tuple[str, dict[Design, str]]) -> None:
    path, ids = stored
    design = Design(1, 1)
    [report] = validate_many([("again", module_source(design))], store=open_store(path), config=ValidationConfig())
    assert report.status == "duplicate" and report.failed_stage == "exact_duplicate"
    assert report.stages[-1].details["duplicate_of"] == ids[design]


def test_an_out_of_range_knob_fails_validation_with_the_field_named() -> None:
    [report] = validate_many([("bad", module_source(Design(7, 1)))], config=ValidationConfig())
    assert not report.accepted and report.failed_stage == "structure"
    assert "difficulty.band" in report.stages[-1].observed


def _rate(path: str, env_id: str, policy, hinted: bool, episodes: int = 48) -> float:
    env = make_env(env_id, store=path)
    rng = random.Random(0)
    wins = 0
    try:
        for seed in range(episodes):
            obs, _ = env.reset(seed=10_000 + seed, options={"hint": True} if hinted else None)
            hint = env.unwrapped.privileged_hint() if hinted else None
            _, _, _, _, info = env.step(policy(obs, hint, rng))
            wins += bool(info["success"])
    finally:
        env.close()
    return wins / episodes


def _copy(obs: str, hint: str | None, rng: random.Random) -> str:
    return obs.split()[-1]


def _hint_reader(obs: str, hint: str | None, rng: random.Random) -> str:
    """Picks uniformly among the letters the hint allows (all twelve without a usable hint)."""
    for k, third in enumerate(THIRDS):
        if hint and f" {third} third" in hint:
            return rng.choice(LETTERS[4 * k:4 * k + 4])
    return rng.choice(LETTERS)


def _table_knower(obs: str, hint: str | None, rng: random.Random) -> str:
    kind, band, shown = obs.split()
    return PARTNERS[int(band)][LETTERS.index(shown)] if kind == "relay" else shown


def test_the_known_landscape(stored: tuple[str, dict[Design, str]]) -> None:
    """Trivial: copying solves repeat without the hint. Edge: relay is unsolved by copying, a hint reader gets about
    1/4 with the hint and 1/12 without, and an agent that knows the table solves it. Impossible: guess stays near
    1/12 with or without the hint."""
    path, ids = stored
    for design, env_id in ids.items():
        if design.category == "trivial":
            assert _rate(path, env_id, _copy, hinted=False) == 1.0
        elif design.category == "edge":
            assert _rate(path, env_id, _copy, hinted=False) == 0.0
            assert _rate(path, env_id, _table_knower, hinted=False) == 1.0
            assert 0.1 <= _rate(path, env_id, _hint_reader, hinted=True) <= 0.45
            assert _rate(path, env_id, _hint_reader, hinted=False) <= 0.25
        else:
            assert _rate(path, env_id, _hint_reader, hinted=True) <= 0.25
            assert _rate(path, env_id, _copy, hinted=False) == 0.0
