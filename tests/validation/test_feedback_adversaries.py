"""Cheap policies that read what a task shows along the way: its answer-format examples, its lists, the numbers and
the direction its feedback gives. Each is played against a small scripted environment through the real contract
wrapper, and each must lose where the task gives nothing away."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from spade_core.validation.adversaries import (
    ActionTemplate,
    bisection,
    direction,
    feedback_offset,
    listed_items,
    shown_examples_of,
)

BOXED = ActionTemplate("\\boxed{", "}")


class _Env:
    """The part of an environment handle a policy reads: the turn count."""

    def __init__(self) -> None:
        self.turn = 0


def _play(policy_maker: Any, respond: Any, turns: int) -> list[str]:
    """Play ``turns`` turns of a policy against ``respond(action) -> observation``; the actions it sent."""
    env, policy, obs, sent = _Env(), policy_maker(), "Start.", []
    for turn in range(turns):
        env.turn = turn
        action = policy(env, obs, {})
        sent.append(action)
        obs = respond(action)
    return sent


def test_an_example_in_the_answer_format_is_found_wherever_the_observation_shows_it() -> None:
    assert shown_examples_of(BOXED, "Step 2: how many? Reply like \\boxed{46.1}; not \\boxed{}.") == ["\\boxed{46.1}"]
    assert shown_examples_of(ActionTemplate("Answer: ", ""), "Reply as\nAnswer: 42\nthen stop") == ["Answer: 42"]
    assert shown_examples_of(ActionTemplate(), "Reply like 42") == []  # a bare format has no example to find


@given(st.text(max_size=300))
def test_reading_examples_and_lists_never_raises(text: str) -> None:
    assert all(e.startswith("\\boxed{") for e in shown_examples_of(BOXED, text))
    assert all(item for item in listed_items(text))
    assert direction(text) in (-1, 0, 1)


def test_direction_is_read_only_where_the_feedback_points_one_way() -> None:
    assert direction("41 is too high.") == -1
    assert direction("Too low; try again.") == 1
    assert direction("Higher or lower: guess again.") == 0
    assert direction("Not the count.") == 0


@given(st.integers(0, 1000))
def test_a_search_finds_any_answer_in_its_range_within_the_log_of_its_width(secret: int) -> None:
    def respond(action: str) -> str:
        guess = int(action[len("\\boxed{"):-1])
        return "Correct, next question." if guess == secret else ("Too high." if guess > secret else "Too low.")

    sent = _play(bisection(BOXED, 0, 1000).make, respond, 11)
    assert f"\\boxed{{{secret}}}" in sent


def test_feedback_numbers_are_read_as_offsets_question_after_question() -> None:
    answers = iter([38, 120, 7])
    current = {"answer": next(answers)}

    def respond(action: str) -> str:
        guess = int(action[len("\\boxed{"):-1])
        if guess == current["answer"]:
            current["answer"] = next(answers, -999)
            return "Correct. Next step."
        return f"{guess} is wrong: you are off by {current['answer'] - guess:+d}."

    plus = _play(feedback_offset(BOXED, "plus", 0).make, respond, 6)
    assert plus == ["\\boxed{1}", "\\boxed{38}", "\\boxed{1}", "\\boxed{120}", "\\boxed{1}", "\\boxed{7}"]


def test_feedback_that_gives_nothing_away_leaves_every_offset_policy_wrong() -> None:
    secret = random.Random(3).randint(10, 10 ** 6)

    def respond(action: str) -> str:
        return "Wrong; 2 tries left." if action != f"\\boxed{{{secret}}}" else "Correct."

    for kind in ("plus", "minus", "as the answer"):
        for index in range(2):
            assert f"\\boxed{{{secret}}}" not in _play(feedback_offset(BOXED, kind, index).make, respond, 6)


def test_listed_items_are_read_after_a_colon() -> None:
    assert listed_items("Word: _ _ _\nStill hidden: o, p, r, t\nLives: 5") == ["o", "p", "r", "t"]
    assert listed_items("Pick red or blue: whichever") == []
    assert listed_items("Options: red or blue") == ["red", "blue"]


def test_a_range_listing_fits_the_action_limit_and_widens_only_where_it_fits() -> None:
    from spade_core.validation.adversaries import ActionTemplate, range_listing

    template = ActionTemplate("\\boxed{", "}")
    wide = range_listing(template, 3, 40, 8192)
    bare = wide[0].make()(None, "", {})  # type: ignore[arg-type]
    assert bare.split() == [str(n) for n in range(0, 81)]  # 0 to twice the largest answer
    boxed = wide[1].make()(None, "", {})  # type: ignore[arg-type]
    assert boxed.startswith("\\boxed{0 1 2") and boxed.endswith("80}")
    narrow = range_listing(template, 1000, 9000, 200)
    listed = narrow[1].make()(None, "", {})  # type: ignore[arg-type]
    assert len(listed) <= 200 and listed.startswith("\\boxed{1000 1001")  # from the least answer up, cut to fit
    assert range_listing(template, 10**8, 10**9, 16) == []


def test_the_ranked_chooser_reads_lettered_numeric_options_of_the_current_question() -> None:
    from spade_core.validation.adversaries import numeric_options, ranked_option

    assert numeric_options("(A) 34 sous  (B) 46 sous  (C) 37 sous") == [34, 46, 37]
    assert numeric_options("A) 3.5\nB) 4\nC. 12") == [3.5, 4, 12]
    assert numeric_options("Move from b2 to c3; player 1 to act") == []
    questions = iter(["(A) 45 sous (B) 36 sous (C) 42 sous (D) 39 sous (E) 48 sous", "(A) 7 (B) 9", "done"])
    sent = _play(ranked_option(BOXED, "middle").make, lambda action: next(questions), 3)
    assert sent == ["\\boxed{}", "\\boxed{42}", "\\boxed{}"]  # two options are too few to rank


def test_a_percentage_off_a_huge_guess_is_inverted_to_the_answer_at_its_printed_precision() -> None:
    from spade_core.validation.adversaries import HUGE_GUESS, relative_inversion

    answer = 2952

    def respond(action: str) -> str:
        guess = int(action.removeprefix("\\boxed{").removesuffix("}"))
        return f"{guess} is {(guess - answer) / answer * 100:.1f}% above the right value."

    assert _play(relative_inversion(BOXED).make, respond, 2) == [f"\\boxed{{{HUGE_GUESS}}}", "\\boxed{2952}"]
    sent = _play(relative_inversion(BOXED).make, lambda action: "Too high.", 2)
    assert sent[1] == "\\boxed{}"  # feedback without a percentage gives nothing to invert
