"""Structural variants of long actions: JSON calls with changed arguments, programs with a changed literal or
operator, and generic wrong programs in the reference's signature. Built from parsed text; nothing is run."""

from __future__ import annotations

import ast
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.validation.mutations import (
    code_mutants,
    json_mutants,
    memorising,
    program_in,
    reordered_results,
    shifted_results,
    shown_examples,
    wrong_programs,
)

PROGRAM = "```python\ndef count_above(xs, k):\n    \"\"\"How many exceed k.\"\"\"\n    return sum(1 for x in xs if x > k)\n```"


def test_json_call_arguments_are_changed_one_by_one_and_all_at_once() -> None:
    call = 'Calling now: {"name": "refund", "arguments": {"order_id": "R-12", "amount": 12.5, "notify": true}}'
    singles, every = json_mutants(call)
    assert every is not None and len(singles) == 3
    for variant in singles:
        assert variant.action.startswith("Calling now: ")
        args = json.loads(variant.action[variant.action.index("{"):])["arguments"]
        assert sum(args[k] != v for k, v in {"order_id": "R-12", "amount": 12.5, "notify": True}.items()) == 1
    changed = json.loads(every.action[every.action.index("{"):])
    assert changed["name"] == "refund" and all(changed["arguments"][k] != v for k, v in
                                               {"order_id": "R-12", "amount": 12.5, "notify": True}.items())
    assert json_mutants('{"name": "ls", "arguments": {}}') == ([], None)
    assert json_mutants("front c") == ([], None)


def test_program_literals_and_operators_change_but_docstrings_do_not() -> None:
    program = program_in(PROGRAM)
    assert program is not None and program_in("front c") is None
    mutants = code_mutants(program)
    assert {m.what for m in mutants} >= {"the literal 1 changed", "the comparison Gt swapped"}
    for mutant in mutants:
        code = program_in(mutant.action).code
        assert ast.parse(code) and "How many exceed k." in code and code != program.code


def test_generic_wrong_programs_keep_the_signature() -> None:
    variants = wrong_programs(program_in(PROGRAM), ["7"])
    whats = [v.what for v in variants]
    assert "every function returning 0" in whats and "every function raising an exception" in whats
    assert "every function returning '7', a value the task shows" in whats
    for variant in variants:
        tree = ast.parse(program_in(variant.action).code)
        assert [f.name for f in tree.body if isinstance(f, ast.FunctionDef)] == ["count_above"]


@settings(max_examples=40)
@given(st.dictionaries(st.text("abcdefgh_", min_size=1, max_size=6),
                       st.one_of(st.integers(), st.text(max_size=8), st.booleans(), st.floats(-1e6, 1e6),
                                 st.lists(st.integers(), max_size=3)), min_size=1, max_size=4))
def test_every_json_mutant_is_valid_json_and_differs(arguments: dict) -> None:
    call = json.dumps({"name": "submit", "arguments": arguments})
    singles, every = json_mutants(call)
    for variant in [*singles, every]:
        assert json.loads(variant.action)["arguments"] != arguments


def _run(code: str, call: str) -> object:
    scope: dict[str, object] = {}
    exec(compile(code, "<memorising>", "exec"), scope)  # the test's own generated text, on the test machine
    return eval(call, scope)


def test_a_memorising_program_answers_only_the_examples_the_task_shows() -> None:
    program = program_in(PROGRAM)
    assert program is not None
    observation = ("Implement count_above.\nExamples:\n  count_above([1, 5, 9], 4) == 2\n"
                   "  >>> count_above([], 0)\n  0\ncount_above(xs=[7], k=1) -> 1\nnot_ours(3) == 4")
    shown = shown_examples(observation, {"count_above"})
    assert [ast.unparse(call) for call, _ in shown] == ["count_above([1, 5, 9], 4)", "count_above([], 0)",
                                                         "count_above(xs=[7], k=1)"]
    variant = memorising(program, observation)
    assert variant is not None and "3 examples" in variant.what
    code = program_in(variant.action)
    assert code is not None
    assert _run(code.code, "count_above([1, 5, 9], 4)") == 2 and _run(code.code, "count_above(xs=[7], k=1)") == 1
    assert _run(code.code, "count_above([1, 5, 9], 0)") is None  # anything not shown: no answer
    assert memorising(program, "Implement count_above; hidden tests check it.") is None


@given(st.text(max_size=200))
@settings(max_examples=60, deadline=None)
def test_shown_examples_never_raise_on_any_text(text: str) -> None:
    for call, value in shown_examples(text, {"f", "count_above"}):
        assert isinstance(call, ast.Call) and isinstance(value, ast.expr)


def test_examples_are_read_wherever_they_stand_and_an_echo_answers_the_rest() -> None:
    program = program_in(PROGRAM)
    assert program is not None
    text = ("FAILED: count_above([2, 3], 1) == 2\nCheck these: count_above([1], 0) == 1; count_above([], 5) == 0.\n"
            "isolated count_above([9], 9) is 0")
    assert [ast.unparse(v) for _, v in shown_examples(text, {"count_above"})] == ["2", "1", "0", "0"]
    echo = memorising(program, text, echo=True)
    assert echo is not None and "echoes its input" in echo.what
    code = program_in(echo.action)
    assert code is not None
    assert _run(code.code, "count_above([], 5)") == 0 and _run(code.code, "count_above([4, 4], 3)") == [4, 4]


def test_list_results_are_reversed_only_where_the_task_shows_an_ordered_list() -> None:
    program = program_in("```python\ndef merge(a, b):\n    return sorted(a + b)\n```")
    assert program is not None
    shown = "Implement merge.\n  merge([1, 4], [2]) == [1, 2, 4]\n"
    reordered = reordered_results(program, shown)
    assert reordered is not None and "result[::-1]" in reordered.action and "merge_as_written = merge" in reordered.action
    assert reordered_results(program, shown + "The items may come in any order.") is None
    assert reordered_results(program, "Implement merge.\n  merge([1], []) == [1]\n") is None  # one item: no order


def test_float_results_are_moved_ten_units_of_the_places_the_examples_show() -> None:
    program = program_in("```python\ndef balance(p, r):\n    return round(p * (1 + r), 2)\n```")
    assert program is not None
    shifted = shifted_results(program, "  balance(100, 0.05) == 105.0\n  balance(10, 0.111) == 11.11\n")
    assert shifted is not None and "10 * 10 ** -2" in shifted.action
    assert shifted_results(program, "  balance(1, 0.5) == 1.49999\n") is None  # a float as computed
    assert shifted_results(program, "  balance(1, 1) == 2.0\nAnswers within 0.5 are accepted.") is None
    assert shifted_results(program, "  balance(1, 1) == 'two'\n") is None
