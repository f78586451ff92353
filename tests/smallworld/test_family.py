"""The Relay family through the real pipeline: every design validates and is stored; its difficulty is as stated."""

from __future__ import annotations

import random

import pytest

from spade_core.gym_bridge import make_env, open_store
from spade_core.smallworld.family import (
    ANSWER_HINT,
    CODE,
    LETTERS,
    MODES,
    THIRDS,
    Design,
    all_designs,
    module_source,
    relay_answer,
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
    assert {d.category for d in ids} == {"trivial", "edge", "impossible", "exploit"}


def test_a_repeated_design_is_an_exact_duplicate(stored: tuple[str, dict[Design, str]]) -> None:
    path, ids = stored
    design = Design(1, 1)
    [report] = validate_many([("again", module_source(design))], store=open_store(path), config=ValidationConfig())
    assert report.status == "duplicate" and report.failed_stage == "exact_duplicate"
    assert report.failures[0].details["duplicate_of"] == ids[design]


def test_an_out_of_range_knob_fails_validation_with_the_field_named() -> None:
    [report] = validate_many([("bad", module_source(Design(7, 1)))], config=ValidationConfig())
    assert not report.accepted and report.failed_stage == "structure"
    assert "difficulty.band" in report.failures[0].observed


def _rate(path: str, env_id: str, policy, hinted: bool, episodes: int = 48, *, hint_only: bool = False) -> float:
    """Success of ``policy(observation, hint, rng)``; ``hint_only``: it sees the hint and no observation."""
    env = make_env(env_id, store=path)
    rng = random.Random(0)
    wins = 0
    try:
        for seed in range(episodes):
            obs, _ = env.reset(seed=10_000 + seed, options={"hint": True} if hinted else None)
            hint = env.unwrapped.privileged_hint() if hinted else None
            _, _, _, _, info = env.step(policy(None if hint_only else obs, hint, rng))
            wins += bool(info["success"])
    finally:
        env.close()
    return wins / episodes


def _copy(obs: str, hint: str | None, rng: random.Random) -> str:
    return obs.split()[-1]


def _hinted_coder(obs: str, hint: str | None, rng: random.Random) -> str:
    """Copies the letter; for a relay, a code letter drawn from the third the hint names (any, without one); for a
    guess, any letter of that third."""
    kind, _, shown = obs.split()
    letters = LETTERS
    for k, third in enumerate(THIRDS):
        if hint and f" {third} third" in hint:
            letters = LETTERS[4 * k:4 * k + 4]
    if kind == "relay":
        return f"{rng.choice(letters)} {shown}"
    return shown if kind == "repeat" else rng.choice(letters)


def _hint_reader(obs: str | None, hint: str | None, rng: random.Random) -> str:
    """Undoes a hint that names the answer doubled (the task may be withheld: the hint-only arm); otherwise as
    :func:`_hinted_coder`, or a random letter with no task at all."""
    if hint and hint.startswith(ANSWER_HINT):
        return " ".join(word[0] for word in hint[len(ANSWER_HINT):].split())
    return _hinted_coder(obs, hint, rng) if obs else rng.choice(LETTERS)


def _code_knower(obs: str, hint: str | None, rng: random.Random) -> str:
    kind, _, shown = obs.split()
    return relay_answer(shown) if kind == "relay" else shown


def test_a_relay_is_answered_with_the_code_then_the_letter(stored: tuple[str, dict[Design, str]]) -> None:
    path, ids = stored
    env = make_env(ids[Design(2, 1)], store=path)
    try:
        letters = set()
        for seed in range(40):
            obs, _ = env.reset(seed=seed)
            kind, band, shown = obs.split()
            assert (kind, band) == ("relay", "2") and shown in LETTERS
            letters.add(shown)
            assert env.step(f"{CODE} {shown}")[4]["success"]
    finally:
        env.close()
    assert len(letters) >= 10  # the answer moves with the seed: no constant solves a relay


def test_a_reply_of_the_wrong_shape_is_a_format_error(stored: tuple[str, dict[Design, str]]) -> None:
    path, ids = stored
    env = make_env(ids[Design(0, 1)], store=path)
    try:
        for action in ("h", "h c d", "hc", "1 c", ""):
            env.reset(seed=3)
            _, reward, _, _, info = env.step(action)
            assert reward == 0.0 and not info["success"] and "format_error" in info, action
    finally:
        env.close()


def test_the_known_landscape(stored: tuple[str, dict[Design, str]]) -> None:
    """Trivial: copying solves repeat, with or without the hint. Edge: an agent that copies the letter and picks a
    code gets about 1/12 without the hint and 1/4 with it; one that knows the code solves it. Impossible:
    guess stays near 1/12 with or without the hint."""
    path, ids = stored
    for design, env_id in ids.items():
        if design.category == "trivial":
            assert _rate(path, env_id, _copy, hinted=False) == 1.0
            assert _rate(path, env_id, _hinted_coder, hinted=True) == 1.0
        elif design.category == "edge":
            assert _rate(path, env_id, _code_knower, hinted=False) == 1.0
            assert _rate(path, env_id, _copy, hinted=False) == 0.0
            assert _rate(path, env_id, _hinted_coder, hinted=False) <= 0.2
            assert 0.12 <= _rate(path, env_id, _hinted_coder, hinted=True) <= 0.45
        elif design.category == "impossible":
            assert _rate(path, env_id, _hinted_coder, hinted=True) <= 0.25
            assert _rate(path, env_id, _copy, hinted=False) == 0.0
            assert _rate(path, env_id, _hint_reader, hinted=True, hint_only=True) <= 0.25
        else:  # an exploit: the hint gives the answer away, with the task or without it
            assert _rate(path, env_id, _hint_reader, hinted=True) == 1.0
            assert _rate(path, env_id, _hint_reader, hinted=True, hint_only=True) == 1.0
            if design.mode == MODES.index("whisper"):  # nothing in the task names the letter
                assert _rate(path, env_id, _hinted_coder, hinted=False) <= 0.2
                assert _rate(path, env_id, _code_knower, hinted=False) <= 0.2
            else:  # the leaky relay, unhinted, is a relay
                assert _rate(path, env_id, _code_knower, hinted=False) == 1.0
                assert _rate(path, env_id, _hinted_coder, hinted=False) <= 0.2
    for design, env_id in ids.items():  # the hint alone solves nothing but an exploit
        if design.category in ("trivial", "edge"):
            assert _rate(path, env_id, _hint_reader, hinted=True, hint_only=True) <= 0.25
