"""The parsing the property stages rely on: the legal numbers a game's text states, the values a task shows, the
values a drawn observation carries and what each seat earned over a game."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from spade_core.validation import validate_source
from spade_core.validation.episodes import Episode
from spade_core.validation.final_state import form
from spade_core.validation.out_of_rules import listed_moves, lists_its_moves, outside_rules, refused, stated_numbers
from spade_core.validation.same_draws import Play, same_play, values
from spade_core.validation.shown_values import shown_values
from spade_core.validation.stalling import seat_returns

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)


@given(st.lists(st.integers(1, 60), min_size=2, max_size=6, unique=True))
def test_a_stated_list_of_numbers_is_the_legal_set(numbers: list[int]) -> None:
    text = ", ".join(map(str, numbers[:-1])) + f" or {numbers[-1]}"
    allowed = stated_numbers(f"Take {text} (reply with the number).")
    assert allowed is not None and set(numbers) <= allowed
    outside = max(numbers) + 1
    assert outside_rules(str(outside), f"Take {text}.", {}) is (outside not in allowed)
    assert not outside_rules(str(numbers[0]), f"Take {text}.", {})


@given(st.integers(0, 50), st.integers(0, 50))
def test_a_stated_range_allows_its_ends_and_nothing_past_them(low: int, width: int) -> None:
    obs = f"Move between {low} and {low + width} cells."
    assert not outside_rules(f"move {low}", obs, {}) and not outside_rules(f"move {low + width}", obs, {})
    assert outside_rules(f"move {low + width + 1}", obs, {})


def test_listed_legal_moves_decide_over_the_text() -> None:
    info = {"legal_moves": ["1", "2", "3", "wait"]}
    assert outside_rules("7", "Add 1 to 9.", info) and not outside_rules("wait", "", info)
    assert outside_rules("999999", "no range stated", {}) and not outside_rules("12", "no range stated", {})


def test_a_move_outside_the_listed_ones_is_refused_by_saying_so_or_by_losing_the_game() -> None:
    assert listed_moves({"legal_moves": [" Left", "RIGHT"]}) == {"left", "right"}
    assert listed_moves({"legal_moves": []}) is None and listed_moves({"legal_moves": [1, 2]}) is None
    assert refused({"format_error": "expected left or right"}, over=False, won=False)
    assert refused({"format_error": None, "action_is_valid": False}, over=False, won=False)
    assert refused({}, over=True, won=False)  # a forfeit
    assert not refused({"format_error": None, "action_is_valid": True}, over=False, won=False)  # silently taken
    assert not refused({"format_error": "x"}, over=True, won=True)  # the move won the game


def _game(moves: list[str], listed: list[str]) -> Episode:
    episode = Episode(seed=0, reset_info={"legal_moves": listed})
    for move in moves:
        episode.steps.append((move, "", 0.0, False, False))
        episode.infos.append({"legal_moves": listed})
    return episode


def test_a_game_lists_its_moves_exactly_only_when_the_reference_plays_listed_text() -> None:
    assert lists_its_moves([_game(["left", "Right "], ["left", "right", "pass"])])
    assert not lists_its_moves([_game(["left"], ["left"]), _game(["take left"], ["left", "right"])])
    assert not lists_its_moves([_game(["left"], [])])  # nothing listed


CORPUS = Path(__file__).parent / "invariants_corpus"


def test_a_game_whose_reference_plays_an_unlisted_form_is_not_judged_by_its_list() -> None:
    """Coin line where the reference says "take left" and the game accepts that form beside the listed "left" (and
    lets invalid moves go on without a forfeit, so the out-of-rules player reaches its last try, the reference's last
    move): the reference's own move is missing from the list, so the list is not the exact legal text and "take
    left" is an accepted form, not a move outside the rules. (Without a forfeit the game fails elsewhere: a seat may
    stall; the stage under test is out_of_rules.)"""
    source = (CORPUS / "good" / "coin_line.py").read_text().replace(
        'move = action.strip().lower()', 'move = action.strip().lower().removeprefix("take ")').replace(
        'return self.best()[0]', 'return "take " + self.best()[0]').replace(
        "if self.invalid[mover] >= 3:", "if self.invalid[mover] >= 300:")
    report = validate_source(source, file="coin_line_take_words.py")
    (stage,) = [s for s in report.stages if s.stage == "out_of_rules"]
    assert stage.verdict == "passed" and "listed" not in stage.observed, stage.observed


@given(st.lists(WORDS, min_size=2, max_size=8, unique=True))
def test_every_listed_option_is_a_shown_value_in_order(options: list[str]) -> None:
    shown = shown_values(f"Which word is meant? Choices: {', '.join(options)}\nReply with the word.")
    assert shown[: len(options)] == options


def test_drawn_values_survive_rewording() -> None:
    assert values("Orders: R-4373 (kettle), paid 12.34.") == values("R-4373 was a kettle costing 12.34!")
    assert values("No numbers here, Alice.") == []


def test_two_plays_are_alike_only_with_the_same_actions_and_outcomes() -> None:
    shown = Counter({"R-1": 1, "R-2": 1, "12.34": 1})
    play = Play(shown, (("refund", "R-1"),), ((1.0, True, True),))
    assert same_play([play], [play]) == 1.0
    other = Play(shown, (("refund", "R-2"),), ((1.0, True, True),))
    assert same_play([play], [other]) is None
    few = Play(Counter({"7": 1}), play.actions, play.outcomes)
    assert same_play([few], [few]) is None  # too few values to tell


def test_each_seat_earns_its_moves_and_its_final_reward() -> None:
    episode = Episode(seed=0, reset_info={"player_id": 1})
    episode.steps = [("pass", "o", 0.2, False, False), ("pass", "o", 0.2, False, False),
                     ("2 1", "o", 1.0, True, False)]
    episode.infos = [{"player_id": 0}, {"player_id": 1}, {"player_id": 1, "rewards": [-1.0, 1.0]}]
    episode.final_info = episode.infos[-1]
    assert seat_returns(episode, 2) == [0.2 - 1.0, 0.2 + 1.0]


def test_a_step_in_the_last_actions_form_is_a_try_not_work() -> None:
    finish = '{"name": "finish", "arguments": {"answer": "confirmed: R1"}}'
    book = '{"name": "add_event", "arguments": {"title": "Visit", "start": "10:00"}}'
    assert form(book) == "call add_event" and form(finish) == "call finish"
    assert form("guess 42") == form("guess 17") and form("2333") == form("2444")
    assert form("\\boxed{12}") != form("clue 3")
