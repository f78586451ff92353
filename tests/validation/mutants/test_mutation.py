"""Mutation operators and the differential oracle (``spade_core.mutation``) on one small guessing environment that
has a site for every operator: each operator rewrites it into a different module that still compiles, and the
oracle tells a mutant that hands out the answer from one that changes nothing observable."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.mutation.operators import OPERATORS, each_mutant, mutants, parse_module
from spade_core.mutation.oracle import (
    CHEAP,
    PROBES,
    REPEAT_OPENING,
    Behaviour,
    behaviour,
    judge,
    manifest_of,
    nudge,
    policies,
    significantly_higher,
)
from spade_core.validation.pipeline import sandbox_handles

FIXTURE = '''
ENV_SPEC = {
    "name": "TargetGuess",
    "domain": "math",
    "description": "Guess a hidden integer in [1, N] from higher/lower feedback; answer as \\\\boxed{n}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "difficulty": {"top": {"min": 10, "max": 60, "default": 30, "description": "largest secret"}},
    "grounding": "Bisection halves the interval each guess.",
    "tags": ["search"],
}


class TargetGuess:
    def __init__(self, top=30):
        self.top = top
        self.secret = 1
        self.low = 1
        self.high = top
        self.left = 0
        self.history = []

    def reset(self, rng, options):
        self.secret = rng.randint(1, self.top)
        self.low = 1
        self.high = self.top
        self.left = 8
        self.history = []
        return f"Guess an integer in [1, {self.top}] as \\\\boxed{{n}}. You have 8 guesses.", {}

    def step(self, action):
        text = action.strip()
        if not text.startswith("\\\\boxed{"):
            return "Reply as \\\\boxed{n}.", 0.0, False, False, {"format_error": "expected \\\\boxed{n}"}
        digits = text[7:-1]
        if not digits.isdigit():
            return "Reply with an integer.", 0.0, False, False, {"format_error": "expected an integer"}
        guess = int(digits)
        repeats = sum(1 for g in self.history if g == guess)
        self.history.append(guess)
        self.left = self.left - 1
        if guess == self.secret and self.left >= 0:
            return "Correct.", 1.0, True, False, {"success": True}
        if self.left <= 0:
            return "Out of guesses.", 0.0, True, False, {"success": False}
        if guess < self.secret:
            self.low = max(self.low, guess + 1)
            word = "higher"
        else:
            self.high = min(self.high, guess - 1)
            word = "lower"
        warm = "warm" if abs(guess - self.secret) < 3 else "cold"
        return f"{guess} is wrong: go {word} ({warm}; repeated {repeats} times).", 0.0, False, False, {}

    def privileged_hint(self):
        return f"The secret lies in [{self.low}, {self.high}]; bisect it."

    def reference_action(self):
        return "\\\\boxed{" + str((self.low + self.high) // 2) + "}"
'''


@pytest.mark.parametrize("operator", list(OPERATORS))
def test_each_operator_makes_a_valid_different_mutant(operator: str) -> None:
    made = mutants(FIXTURE, operator)
    assert made, f"{operator} found no site in the fixture"
    original = ast.unparse(parse_module(FIXTURE).tree)
    for mutant in made:
        assert mutant.operator == operator and mutant.what.startswith("line ")
        assert parse_module(mutant.source).env_class.name == "TargetGuess"  # still one environment with its spec
        assert mutant.source != original, mutant.what
    assert len(mutants(FIXTURE, operator, sites=1, label="x")) == 1
    assert mutants(FIXTURE, operator, sites=1, label="x") == mutants(FIXTURE, operator, sites=1, label="x")


def test_unknown_operator_is_named() -> None:
    with pytest.raises(ValueError, match="unknown mutation operator 'nope'; known: widen_comparison"):
        mutants(FIXTURE, "nope")


def test_oracle_keeps_a_worse_mutant_and_drops_an_equivalent_one() -> None:
    seeds = (0, 1, 2, 3)
    original = behaviour(FIXTURE, sandbox_handles, seeds=seeds)
    assert original.successes["reference"] == len(seeds) and original.successes["first number"] == 0
    # the reset forgets the secret: it stays 1, the first number of the task text, so a cheap policy wins
    (forgets,) = [m for m in mutants(FIXTURE, "reset_forgets_field") if m.what.endswith("self.secret")]
    worse = judge(original, behaviour(forgets.source, sandbox_handles, seeds=seeds))
    assert worse.worse and any(r.startswith("first number succeeds") for r in worse.reasons), worse.reasons
    # `guess < secret` made `<=` after equality already returned: the same environment
    (same,) = [m for m in mutants(FIXTURE, "widen_comparison") if "if guess <= self.secret:" in m.source]
    equivalent = judge(original, behaviour(same.source, sandbox_handles, seeds=seeds))
    assert not equivalent.worse, equivalent.reasons


SHAPES = Path(__file__).parents[1] / "standard_shapes"


def test_a_tolerance_built_by_a_call_is_a_site() -> None:
    source = "from fractions import Fraction\n" + FIXTURE.replace(
        "class TargetGuess:", "TOLERANCE = Fraction(1, 1000)\n\n\nclass TargetGuess:")
    (made,) = [m for m in mutants(source, "multiply_tolerance") if "Fraction" in m.what]
    assert "TOLERANCE = Fraction(1, 1000) * 100" in made.source


def test_each_mutant_is_lazy_and_in_the_sampled_order() -> None:
    every = mutants(FIXTURE, "drop_condition", label="x")
    assert len(every) > 3
    assert mutants(FIXTURE, "drop_condition", sites=3, label="x") == every[:3]
    assert next(each_mutant(FIXTURE, "drop_condition", label="x")) == every[0]


@given(st.integers(-10**6, 10**6), st.sampled_from([1, -1]))
def test_nudge_moves_every_number_one_step(value: int, direction: int) -> None:
    assert nudge(f"\\boxed{{{value}}}", direction) == f"\\boxed{{{value + direction}}}"
    moved = float(nudge(f"\\boxed{{{value / 8:.3f}}}", direction)[7:-1])
    assert moved != value / 8 and (moved - value / 8) * direction > 0


def test_nudge_in_the_last_place_moves_a_decimal_by_its_last_digit_and_an_integer_by_a_fraction() -> None:
    assert nudge("\\boxed{12.34}", 1, last_place=True) == "\\boxed{12.35}"
    assert nudge("\\boxed{0.5} and 7", -1, last_place=True) == "\\boxed{0.4} and 6.4"


def test_nudge_leaves_names_and_subtraction_signs_alone() -> None:
    assert nudge("def f(x2):\n    return range(1, n-1)", 1) == "def f(x2):\n    return range(2, n-2)"
    assert nudge("take -3", 1) == "take -2" and nudge("pass", 1) == "pass"


def test_the_near_miss_probe_keeps_a_tolerance_multiplied_past_the_one_the_task_states() -> None:
    """The pendulum task states its tolerance from the constant the check uses. Multiplied in the check alone (the
    text still says 0.01 s), a reply 2% off is accepted against the task's word: worse. Multiplied in both, the task
    says 1.0 s and the check keeps to it: a looser task, honestly stated, which the oracle does not count (the gate's
    precision probe accepts it too)."""
    stated = (SHAPES / "pendulum_tolerance.py").read_text()
    assert "Answers within {TOLERANCE} s are accepted." in stated
    literal = stated.replace("Answers within {TOLERANCE} s are accepted.", "Answers within 0.01 s are accepted.")
    seeds = (0, 1, 2, 3)
    for source, worse_expected in ((literal, True), (stated, False)):
        original = behaviour(source, sandbox_handles, seeds=seeds)
        assert original.successes["reference off by +1"] == 0  # 2% off is outside 0.01 s
        (wide,) = mutants(source, "multiply_tolerance")
        mutant = behaviour(wide.source, sandbox_handles, seeds=seeds)
        assert mutant.successes["reference off by +1"] > 0  # the check now takes it in both
        judged = judge(original, mutant)
        assert judged.worse is worse_expected, judged.reasons
        assert any(r.startswith("reference off by") for r in judged.reasons) is worse_expected


def test_boundary_probes_play_single_player_value_tasks_only() -> None:
    """A nudged move is wrong only where the reference's move is the one right answer: not in a game (another legal
    move) and not in a program (mostly one that never ends)."""
    games = Path(__file__).resolve().parents[3] / "plugins" / "domains" / "games" / "seeds"
    duel = manifest_of((games / "kuhn_poker.py").read_text())
    assert duel.players > 1 and set(policies(duel)) == set(CHEAP)
    single = manifest_of((SHAPES / "pendulum_tolerance.py").read_text())
    assert single.players == 1 and set(policies(single)) == set(CHEAP) | set(PROBES)


def test_significantly_higher_is_fishers_exact_test_on_successes() -> None:
    """0 of 8 against 4 of 8: a chance of 70 / 1820 = 0.038 that four successes all fall in the second sample."""
    def wins(k: int, n: int = 8) -> list[float]:
        return [1.0] * k + [0.0] * (n - k)
    assert significantly_higher(wins(0), wins(4)) and significantly_higher(wins(1), wins(6))
    assert not significantly_higher(wins(0), wins(3)) and not significantly_higher(wins(1), wins(3))
    assert not significantly_higher(wins(3), wins(3)) and not significantly_higher(wins(5), wins(2))
    assert not significantly_higher([], wins(8)) and not significantly_higher(wins(0, 2), wins(2, 2))


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=8), st.lists(st.floats(-5, 5), min_size=1, max_size=8))
def test_significantly_higher_needs_a_higher_mean_and_is_kept_by_raising_the_higher_sample(
        before: list[float], after: list[float]) -> None:
    if significantly_higher(before, after):
        assert sum(after) / len(after) > sum(before) / len(before)
        assert significantly_higher(before, [a + 1.0 for a in after])


def test_significantly_higher_samples_the_splits_of_large_samples_reproducibly() -> None:
    before, after = [0.0] * 12 + [0.5] * 2, [1.0] * 10 + [0.0] * 4
    assert significantly_higher(before, after) and significantly_higher(before, after) == significantly_higher(
        list(before), list(after))
    assert not significantly_higher(after, before)


def _seen(statements: tuple[str, ...], random_wins: int) -> Behaviour:
    wins = tuple([1.0] * random_wins + [0.0] * (8 - random_wins))
    return Behaviour(successes={"reference": 8, "random": random_wins}, returns={"random": random_wins / 8},
                     wins={"random": wins}, episode_returns={"random": wins}, hint_read_successes=8,
                     statements=statements)


def test_a_cheap_policys_gain_on_restated_tasks_counts_only_when_significant() -> None:
    """The same tasks: any gain is the mutant's doing. Other tasks (the mutant draws them differently): 1 seed of 8
    against 3 is luck of the draw, in successes and in returns; 0 against 6 is not."""
    same, other = tuple("abcdefgh"), tuple("ABCDEFGH")
    assert judge(_seen(same, 1), _seen(same, 2)).worse
    assert not judge(_seen(same, 1), _seen(other, 3)).worse
    assert judge(_seen(same, 0), _seen(other, 6)).worse


GAMES = Path(__file__).resolve().parents[3] / "plugins" / "domains" / "games" / "seeds"


def test_repeating_the_references_opening_is_played_only_where_the_opening_is_public() -> None:
    """Mastermind's reference opens with 1122 on every seed: repeating it is a constant an agent can play. A reset
    that forgets the candidate pool leaves the reference playing the secret code first (the contract lets it read
    the secret): the same first observation, a different opening per seed, so repeating it is not a cheap policy and
    the mutant, the same game for an agent, is not kept."""
    source = (GAMES / "mastermind.py").read_text()
    seeds = (0, 1, 2, 3)
    original = behaviour(source, sandbox_handles, seeds=seeds)
    assert REPEAT_OPENING in original.successes and original.successes[REPEAT_OPENING] == 0
    (forgets,) = [m for m in mutants(source, "reset_forgets_field") if m.what.endswith("self.pool")]
    mutant = behaviour(forgets.source, sandbox_handles, seeds=seeds)
    assert REPEAT_OPENING not in mutant.successes and mutant.successes["reference"] == len(seeds)
    assert not judge(original, mutant).worse, judge(original, mutant).reasons


def test_a_probe_episode_without_a_nudged_move_is_not_counted() -> None:
    """A yes/no task: the reference's answers hold no number, so every probe plays the reference's own episode, and
    none of them counts as a boundary probe's success."""
    source = (SHAPES / "divisible_yes_no.py").read_text()
    seen = behaviour(source, sandbox_handles, seeds=(0, 1, 2, 3))
    assert seen.successes["reference"] == 4
    assert all(seen.successes[label] == 0 for label in PROBES)
