"""Computed values: what the reference's calls pass that no observation it saw showed, nested arguments walked."""

from __future__ import annotations

import json

from spade_core.validation.episodes import Episode
from spade_core.validation.mutations import json_call
from spade_core.validation.tool_leaks import _leaves, _shows, computed_values


def episode(actions: list[str], observations: list[str], reset: str = "Fill in the roster.") -> Episode:
    return Episode(seed=0, reset_obs=reset, steps=[(a, o, 0.0, False, False) for a, o in
                                                   zip(actions, observations, strict=True)])


def test_values_the_reference_works_out_are_computed_and_values_it_read_are_not() -> None:
    read = json.dumps({"name": "select", "arguments": {"table": "scores"}})
    write = json.dumps({"name": "update", "arguments": {"table": "roster", "values": {"final_pct": 82.7, "letter": "B"},
                                                        "where": [{"column": "student", "value": "ada"}]}})
    played = episode([read, write], ['select -> [{"student": "ada", "hw": 80.5, "exam": 85}]', "updated 1 row"])
    assert computed_values(played) == ["82.7"]  # numbers only: names and labels ('scores', 'B') are not judged
    assert _shows('{"issues": [{"student": "ada", "expected": 82.70}]}', ["82.7"]) == ["82.7"]
    assert _shows('{"issues": [{"student": "ada", "problem": "missing"}]}', ["82.7"]) == []


def test_small_whole_numbers_and_words_are_not_computed_values() -> None:
    call = json.dumps({"name": "set", "arguments": {"count": 3, "flag": True, "code": "okay", "total": 1250,
                                                    "hours": "37.5"}})
    assert computed_values(episode([call], ["done"])) == ["1250", "37.5"]


def test_leaves_walk_nested_arguments_in_order() -> None:
    call = json_call('{"name": "u", "arguments": {"a": 1, "b": {"c": [2, {"d": 3}]}, "e": "x"}}')
    assert call is not None and _leaves(call.arguments) == [1, 2, 3, "x"]
    bare = call.bare("audit")
    assert json.loads(bare) == {"name": "audit", "arguments": {}}
