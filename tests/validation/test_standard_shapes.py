"""The standard-shapes corpus: good environments in the field's conventions (HumanEval/MBPP-style fixed
specifications with hidden tests, classes and parsers, any-valid-output tasks, multi-turn tool tasks with many
reads, numbers with stated tolerances and units, small answer and start spaces, games with pass, resign and
forfeit rules, adaptive plans as hints). No stage may reject one of them; each file's first line names its shape."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spade_core.contract.rng import EpisodeRandom
from spade_core.validation import validate_source
from spade_core.validation.config import ValidationConfig
from spade_core.validation.determinism import SAME_TASK_SEEDS
from spade_core.validation.stage_list import stage_named

CORPUS = Path(__file__).parent / "standard_shapes"
SHAPES = sorted(CORPUS.glob("*.py"))
DEFAULT_RUN = 10
"""How many of the corpus files the default suite validates; the slow run validates the rest."""


def evenly_spaced(items: list[Path], count: int) -> list[Path]:
    """``count`` of ``items`` spread evenly over the sorted list (the first one always among them)."""
    if count >= len(items):
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


SAMPLED = evenly_spaced(SHAPES, DEFAULT_RUN)
REST = [path for path in SHAPES if path not in SAMPLED]


def test_every_environment_names_its_shape() -> None:
    for path in SHAPES:
        assert path.read_text().startswith("# shape: "), path


def test_the_corpus_holds_forty_environments_and_the_two_runs_cover_each_once() -> None:
    assert len(SHAPES) >= 40
    assert sorted(SAMPLED + REST) == SHAPES


@pytest.mark.parametrize("path", SAMPLED, ids=lambda p: p.stem)
def test_the_gate_accepts_the_standard_shape(path: Path) -> None:
    """The default suite validates DEFAULT_RUN files spread evenly over the sorted corpus (about a minute on two
    cores); every stage must accept each of them."""
    report = validate_source(path.read_text(), file=str(path))
    assert report.accepted, report.message


@pytest.mark.slow
@pytest.mark.parametrize("path", REST, ids=lambda p: p.stem)
def test_the_gate_accepts_the_rest_of_the_corpus(path: Path) -> None:
    """With ``-m slow``: the files the default run leaves out, so the two runs together validate the whole
    corpus (several minutes on two cores)."""
    report = validate_source(path.read_text(), file=str(path))
    assert report.accepted, report.message


def test_invariance_concerns_value_answers_not_programs() -> None:
    stage = stage_named("invariance")
    assert stage.concerns("math") and stage.concerns("games") and stage.concerns("tool_use")
    assert not stage.concerns("code")
    report = validate_source((CORPUS / "close_elements.py").read_text())
    assert report.accepted and "invariance" not in [r.stage for r in report.stages], report.message


def _colliding_seed(first: int, space: int) -> int:
    """A seed whose first draw from ``space`` is the same as seed ``first``'s."""
    drawn = EpisodeRandom(first).randrange(space)
    return next(s for s in range(first + 1, 10_000) if EpisodeRandom(s).randrange(space) == drawn)


def test_two_seeds_drawing_the_same_secret_do_not_make_every_seed_the_same_task() -> None:
    source = (CORPUS / "runner_order.py").read_text()
    twin = _colliding_seed(0, 24)
    seeds = (0, twin, *(s for s in range(1, 49) if s != twin))
    report = validate_source(source, config=ValidationConfig(seeds=seeds))
    assert report.accepted, report.message


def test_a_task_that_ignores_its_rng_is_still_the_same_task_on_every_seed() -> None:
    source = (CORPUS / "runner_order.py").read_text()
    flawed = source.replace("ORDERS[rng.randrange(len(ORDERS))]", "ORDERS[7]")
    assert flawed != source
    report = validate_source(flawed)
    assert report.failed_stage == "determinism", report.message
    named = re.search(r"identical for seeds ([\d, ]+)", report.message)
    assert named is not None and len(named.group(1).split(",")) == SAME_TASK_SEEDS, report.message


@pytest.mark.parametrize(("name", "original", "flawed", "stage", "said"), [
    ("pendulum_tolerance", "abs(value - self.answer) <= TOLERANCE", "abs(value - self.answer) <= 0.1 * self.answer",
     "verifier", "was accepted"),
    ("weekday_after", "return ABBREVIATIONS.get(word)",
     "return next((i for i, d in enumerate(DAYS) if word and d.lower().startswith(word)), None)", "verifier",
     "first letter"),
    ("nim_resign_forfeit", "if self.bad >= 3:", "if self.bad >= 999:", "reward_range", "played every turn"),
    ("divisible_yes_no", "if rng.random() < 0.5:", "if rng.random() < 0.05:", "baselines", "wins 1"),
    ("divisible_yes_no", "ok = (word in YES) == (self.number % self.divisor == 0)", "ok = True", "baselines",
     "wins"),
    ("nim_pass_forfeit", "if self.bad >= 3:", "if self.bad >= 999:", "reward_range", "more than a lost game"),
    ("tic_tac_toe_draw", "if self.bad >= 3:", "if self.bad >= 999:", "reward_range", "more than a lost game"),
    ("tic_tac_toe_draw", 'return self._text(f"The bot played {reply + 1}."), 0.0,',
     'return self._text(f"The bot played {reply + 1}."), 1.0,', "reward_rule", "random legal"),
], ids=lambda v: v if isinstance(v, str) and "_" in v and " " not in v else "")
def test_the_flawed_twin_of_a_standard_shape_is_still_rejected(name: str, original: str, flawed: str, stage: str,
                                                                said: str) -> None:
    """A tolerance of 10% (not one the task states), any prefix of a weekday (one letter too), malformed moves
    that never forfeit (garbage stalls at 0 while resigning costs -1; in games against a bot that list their
    moves, while every lost game of legal moves pays -1), the top reward for a move that does not end the game
    (a random legal player's long game or draw earns as much as winning), a yes/no task whose answer is nearly always
    no (a constant guess wins past the cap on a small space's chance share) and one that accepts either answer are
    still caught by the stage made precise."""
    source = (CORPUS / f"{name}.py").read_text()
    assert original in source
    report = validate_source(source.replace(original, flawed))
    failures = {r.stage: r.observed for r in report.failures}
    assert stage in failures and said in failures[stage], report.message


def test_a_fixed_spec_task_is_the_same_task_on_every_seed_only_when_its_hidden_tests_are_fixed() -> None:
    """Its feedback only counts passing tests, so wrong programs fail every seed alike; near-miss programs pass a
    different share of each seed's drawn tests, and of fixed tests the same share everywhere."""
    source = (CORPUS / "bracket_insertions.py").read_text()
    fixed = source.replace("            s = self._draw(rng)",
                           '            s = ["(()", "([)]", "{{", ")(", "[[]", "(]", "}{", "((("][tries % 8]')
    fixed = fixed.replace('        bad = rng.choice(["(a)", "[ ]", "{<>}", "(1]"])', '        bad = "(a)"')
    assert 'bad = "(a)"' in fixed and "self._draw(rng)" not in fixed
    assert validate_source(source).accepted
    report = validate_source(fixed)
    assert report.failed_stage == "determinism" and "every seed gives the same task" in report.message, report.message
