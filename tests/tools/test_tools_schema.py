"""The JSON-schema subset validator behind every tool call: messages, keywords, normalisation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_tools.schema import json_type, normalize, obj, validate

DEPOSIT = obj({
    "account": {"type": "string", "minLength": 1, "maxLength": 10},
    "amount": {"type": "number", "minimum": 0},
    "memo": {"type": "string"},
}, ["account", "amount"])


@pytest.mark.parametrize(("arguments", "message"), [
    ({"account": "a", "amount": "5"}, "argument 'amount' must be number, got string"),
    ({"account": "a", "amount": True}, "argument 'amount' must be number, got boolean"),
    ({"account": "a"}, "missing required argument 'amount'"),
    ({"account": "a", "amount": 1, "amout": 2}, "unexpected argument 'amout'"),
    ({"account": "", "amount": 1}, "argument 'account' must not be empty"),
    ({"account": "a" * 11, "amount": 1}, "argument 'account' must have at most 10 characters, got 11"),
    ({"account": "a", "amount": -1}, "argument 'amount' must be >= 0, got -1"),
    ({"account": "a", "amount": math.nan}, "argument 'amount' must be a finite number"),
    ([1, 2], "arguments must be object, got array"),
])
def test_messages_name_the_argument_and_the_problem(arguments, message) -> None:
    problem = validate(arguments, DEPOSIT)
    assert problem is not None and message in problem


def test_unexpected_argument_suggests_the_close_name() -> None:
    assert "did you mean 'amount'?" in validate({"account": "a", "amount": 1, "amout": 2}, DEPOSIT)


def test_valid_arguments_pass() -> None:
    assert validate({"account": "a", "amount": 2.5, "memo": "x"}, DEPOSIT) is None
    assert validate({"account": "a", "amount": 0}, DEPOSIT) is None


def test_nested_paths_items_and_enum() -> None:
    schema = obj({
        "where": {"type": "array", "maxItems": 2, "items": obj({
            "op": {"type": "string", "enum": ["=", "<"]},
            "value": {"type": ["string", "number", "null"]},
        }, ["op", "value"])},
        "values": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
    })
    assert validate({"where": [{"op": "=", "value": None}]}, schema) is None
    assert validate({"where": [{"op": "==", "value": 1}]}, schema) == (
        "argument 'where[0].op' must be one of '=', '<'; got '=='"
    )
    assert validate({"where": [{"op": "=", "value": []}]}, schema) == (
        "argument 'where[0].value' must be string or number or null, got array"
    )
    assert validate({"where": [{"op": "="}]}, schema) == "missing required argument 'where[0].value'"
    assert "at most 2 items" in validate({"where": [{"op": "=", "value": 1}] * 3}, schema)
    assert validate({"values": {"a": 1}}, schema) == "argument 'values.a' must be string or null, got integer"


def test_integer_follows_json_schema_and_normalises() -> None:
    schema = obj({"n": {"type": "integer"}, "xs": {"type": "array", "items": {"type": "integer"}}})
    assert validate({"n": 2.0, "xs": [1.0, 3]}, schema) is None
    assert validate({"n": 2.5}, schema) == "argument 'n' must be integer, got number"
    assert validate({"n": True}, schema) == "argument 'n' must be integer, got boolean"
    normal = normalize({"n": 2.0, "xs": [1.0, 3]}, schema)
    assert normal == {"n": 2, "xs": [1, 3]} and type(normal["n"]) is int and type(normal["xs"][0]) is int


def test_enum_distinguishes_true_from_one() -> None:
    schema = {"enum": [1, "a"]}
    assert validate(1, schema) is None
    assert validate(True, schema) is not None


def test_json_type_names() -> None:
    assert [json_type(v) for v in (None, True, 1, 1.5, "s", [], {})] == [
        "null", "boolean", "integer", "number", "string", "array", "object"
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=10,
)


@settings(derandomize=True, deadline=None, max_examples=60)
@given(value=JSON)
def test_validate_never_raises_and_answers_str_or_none(value) -> None:
    for schema in (DEPOSIT, {"type": "array", "items": DEPOSIT}, {"type": ["integer", "null"]}, {}):
        problem = validate(value, schema)
        assert problem is None or isinstance(problem, str)


@settings(derandomize=True, deadline=None, max_examples=60)
@given(account=st.text(min_size=1, max_size=10), amount=st.floats(0, 1e9), memo=st.text(max_size=20))
def test_conforming_values_always_pass(account: str, amount: float, memo: str) -> None:
    assert validate({"account": account, "amount": amount, "memo": memo}, DEPOSIT) is None
