"""Argument swaps: the (tool, argument) whose swapped-in values from other seeds keep winning is named; chance wins
of a task that accepts several right values are not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spade_core.validation.argument_swaps import MIN_SWAPS, Swap, _calls, unchecked_argument


def swaps(tool: str, argument: str, wins: list[bool]) -> list[Swap]:
    return [Swap(seed, seed + 1, tool, argument, won) for seed, won in enumerate(wins)]


def test_an_argument_whose_swaps_always_win_is_named() -> None:
    found = unchecked_argument(swaps("write_file", "path", [False] * 6) + swaps("write_file", "content", [True] * 6),
                               0.5)
    assert found is not None and found[0] == ("write_file", "content") and len(found[1]) == 6


@given(st.lists(st.booleans(), max_size=12))
def test_too_few_or_chance_wins_name_nothing(wins: list[bool]) -> None:
    found = unchecked_argument(swaps("book", "slot", wins), 0.5)
    if len(wins) < MIN_SWAPS or sum(wins) <= len(wins) // 2:
        assert found is None


def test_calls_are_keyed_by_tool_and_occurrence() -> None:
    actions = ['{"tool": "read_file", "path": "a"}', "not json", '{"tool": "write_file", "path": "x", "content": "1"}',
               '{"tool": "write_file", "path": "y", "content": "2"}', '{"tool": "finish"}']
    calls = _calls(actions)
    assert sorted(calls) == [("finish", 0), ("read_file", 0), ("write_file", 0), ("write_file", 1)]
    assert calls[("write_file", 1)][0] == 3 and calls[("write_file", 1)][1].arguments == {"path": "y", "content": "2"}


def test_prose_is_not_judged_word_for_word() -> None:
    from spade_core.validation.argument_swaps import prose

    assert prose("Hello Ana, your refund of 45 euros was approved today.")
    assert not prose("North total: 1250") and not prose(1250) and not prose(["a", "b", "c", "d", "e", "f"])


def test_emptied_arguments_are_judged_apart_from_other_seeds_values() -> None:
    """An update whose ``where`` may be dropped (every row changed) is named even where other seeds' filters fail:
    the two kinds of swap are not pooled."""
    given_values = swaps("update", "where", [False] * 6)
    emptied = [Swap(seed, None, "update", "where", True) for seed in range(4)]
    found = unchecked_argument(given_values + emptied, 0.5)
    assert found is not None and found[0] == ("update", "where") and all(s.other is None for s in found[1])
    assert unchecked_argument(given_values + emptied[:1], 0.5) is None


def test_swaps_take_each_argument_in_turn() -> None:
    """An argument that differs between seeds only now and then gets its swaps before the budget goes to those that
    always differ."""
    from spade_core.validation.argument_swaps import _planned
    from spade_core.validation.episodes import Episode

    def episode(seed: int, start: str) -> Episode:
        call = f'{{"name": "add_event", "arguments": {{"title": "t{seed}", "day": "d{seed}", "start": "{start}"}}}}'
        return Episode(seed=seed, steps=[(call, "ok", 0.0, False, False), ('{"name": "finish"}', "", 1.0, True, False)])

    refs = [episode(s, "14:00" if s % 3 else "12:00") for s in range(6)]
    names = [plan.name for plan in _planned(refs)]
    assert names[:3] == ["title", "day", "start"] and names.count("start") >= 3
