"""Floods: a call's argument given every value of its shape that the observation offering it showed."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from spade_core.validation.mutations import json_call
from spade_core.validation.shown_floods import Flood, floods, observation_tokens, shape, winning_flood


def test_shapes_group_values_of_one_kind() -> None:
    assert shape("10:30") == shape("08:00") == "9:9"
    assert shape("R-12") == shape("Q-7") == "a-9" != shape("10:30")
    assert shape("alice") == shape("Bob") == "a"


def test_a_slot_is_flooded_with_the_slots_of_the_list_that_offered_it() -> None:
    call = json_call('{"name": "book", "arguments": {"slot": "14:30", "room": "blue"}}')
    assert call is not None
    offered = observation_tokens("Proposed slots: 08:30, 12:00, 14:30, 15:30")
    busy = observation_tokens("ana is busy at 10:30, 14:30")
    variants = floods(call, [offered, busy])
    assert [json.loads(v)["arguments"]["slot"] for v, _ in variants[:1]] == [["08:30", "12:00", "14:30", "15:30"]]
    assert json.loads(variants[1][0])["arguments"]["slot"] == "08:30, 12:00, 14:30, 15:30"
    assert all(json.loads(v)["arguments"]["room"] == "blue" for v, _ in variants)  # 'blue' was never shown


def test_numbers_stay_numbers_and_a_value_already_everything_is_not_flooded() -> None:
    call = json_call('{"name": "pick", "arguments": {"ids": [3, 9]}}')
    assert call is not None
    variants = floods(call, [observation_tokens("Open tickets: 3, 9, 12")])
    assert [json.loads(v)["arguments"]["ids"] for v, _ in variants] == [[3, 9, 12]]
    assert floods(call, [observation_tokens("Open tickets: 3, 9")]) == []


@given(st.lists(st.booleans(), max_size=10))
def test_a_flood_that_wins_by_chance_is_not_named(wins: list[bool]) -> None:
    found = winning_flood([Flood(i, "book: slot", w) for i, w in enumerate(wins)], 0.5)
    if sum(wins) <= len(wins) // 2:
        assert found is None
    if len(wins) >= 3 and all(wins):
        assert found is not None
