"""The answer-space walk: the answers of the shape the reference's final answers share, each tried once, where they
fit in max_turns. A task whose wrong answer leaves the episode open is won by listing them; a task that ends on a
wrong answer is not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spade_core.validation.adversaries import answer_space, answer_walk


def test_each_varying_slot_ranges_over_what_the_answers_show() -> None:
    space = answer_space(["answer 7 light", "answer 3 heavy", "answer 12 light", "answer 5 heavy"], 30)
    assert len(space) == 10 * 2  # coins 3..12 times light, heavy
    assert "answer 5 heavy" in space and "answer 12 heavy" in space and "answer 2 light" not in space


def test_single_letters_range_between_the_least_and_the_greatest_seen() -> None:
    space = answer_space(["C lower", "F upper", "A upper", "B lower"], 30)
    assert len(space) == 6 * 2 and "E lower" in space and "G upper" not in space


def test_words_stand_for_their_slot_only_where_they_repeat() -> None:
    """Twelve seeds, twelve different words: the thirteenth is likely another; the same few words again and again
    are likely all there are (the Good-Turing estimate of what is left unseen)."""
    words = ["solve", "ratio", "prime", "sight", "draft", "block", "crane", "plumb", "quart", "vivid", "woken", "zesty"]
    assert answer_space([f"guess {w}" for w in words], 30) == []
    repeated = ["north", "south", "east", "west"] * 3
    assert sorted(answer_space([f"go {w}" for w in repeated], 30)) == sorted(f"go {w}" for w in set(repeated))


def test_zero_padded_numbers_keep_their_width() -> None:
    assert answer_space(["07", "12", "09"], 30) == [f"{n:02d}" for n in range(7, 13)]


def test_no_space_where_the_answers_differ_in_shape_agree_or_outgrow_the_turns() -> None:
    assert answer_space(["answer 7", "answer 7 light"], 30) == []  # different runs
    assert answer_space(["a-1", "a 2"], 30) == []  # punctuation differs
    assert answer_space(["answer 7", "answer 7"], 30) == []  # one answer: the constants cover it
    assert answer_space(["answer 7 light", "answer 90 heavy"], 30) == []  # 168 answers > 30 turns
    assert answer_space(["only one"], 30) == []
    assert answer_space(["x" * 100, "y" * 100], 30) == []  # long answers (programs, plans) are not walked


@given(st.lists(st.tuples(st.integers(0, 20), st.sampled_from(["red", "blue", "green"])), min_size=2, max_size=12))
def test_every_answer_seen_is_in_the_space_when_there_is_one(pairs: list[tuple[int, str]]) -> None:
    answers = [f"pick {n} {colour}" for n, colour in pairs]
    space = answer_space(answers, 100)
    if space:
        assert set(answers) <= set(space)
        assert len(space) == len(set(space)) <= 100


class _Env:
    def __init__(self) -> None:
        self.turn = 0


def test_the_walk_plays_each_answer_once_in_turn() -> None:
    space = answer_space(["answer 1 up", "answer 2 down", "answer 2 up", "answer 1 down"], 10)
    policy, env = answer_walk(space).make(), _Env()
    played = []
    for turn in range(len(space)):
        env.turn = turn
        played.append(policy(env, "obs", {}))
    assert played == space
