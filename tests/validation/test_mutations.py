"""Structural variants of long actions: JSON calls with changed arguments, programs with a changed literal or
operator, and generic wrong programs in the reference's signature. Built from parsed text; nothing is run."""

from __future__ import annotations

import ast
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.validation.mutations import (
    code_mutants,
    example_breaking,
    json_call,
    json_mutants,
    listing_mutants,
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


def test_a_text_argument_changed_names_other_numbers_too() -> None:
    """``"3"`` becomes ``"4x"``, not ``"3x"``: a check that reads the number out of the answer text must see a wrong
    one, or a sound lenient check (``3 accounts`` accepted) would look lax."""
    _, every = json_mutants('{"name": "finish", "arguments": {"answer": "3", "note": "room 09, 3 beds"}}')
    assert every is not None
    changed = json.loads(every.action)["arguments"]
    assert changed["answer"] == "4x" and "01" in changed["note"] and "3" not in changed["note"]


@given(st.integers(0, 10**12), st.text("ab -", max_size=4), st.text("ab -", max_size=4))
def test_no_number_survives_in_a_changed_text(number: int, before: str, after: str) -> None:
    text = f"{before}{number}{after}"
    _, every = json_mutants(json.dumps({"name": "finish", "arguments": {"answer": text}}))
    assert every is not None
    changed = json.loads(every.action)["arguments"]["answer"]
    assert str(number) not in changed.replace(str(number + 1)[::-1], "")


def test_a_listing_holds_the_right_number_in_the_middle_never_first_or_last() -> None:
    (variant,) = listing_mutants('{"name": "finish", "arguments": {"answer": "3 fill-ups", "month": "May"}}')
    answer = json.loads(variant.action)["arguments"]["answer"]
    numbers = answer.removesuffix(" fill-ups").split()
    assert "3" in numbers and numbers[0] != "3" and numbers[-1] != "3" and len(numbers) == 34
    assert json.loads(variant.action)["arguments"]["month"] == "May"
    assert listing_mutants('{"name": "finish", "arguments": {"answer": "2 of 3"}}') == []  # two numbers: not read
    assert listing_mutants('{"name": "finish", "arguments": {"answer": 3}}') == []  # a number, not a text
    assert listing_mutants("front c") == []


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


def _namespace(variant_action: str) -> dict:
    """Our own generated program (from a trusted test program), run in the test to see which functions it keeps."""
    program = program_in(variant_action)
    assert program is not None
    namespace: dict = {}
    exec(program.code, namespace)  # noqa: S102 - trusted text built from this test's own program
    return namespace


def test_example_breaking_keeps_the_mutant_only_where_it_gets_a_shown_example_wrong() -> None:
    program = program_in("def double(x):\n    return x * 2\n")
    assert program is not None
    mutants = code_mutants(program, 8, spread=True)
    assert [m.what for m in mutants] == ["the literal 2 changed", "the operator Mult swapped"]
    both = "Examples: double(2) == 4; double(0) == 0"
    kept = [_namespace(example_breaking(program, m, both).action)["double"](5) for m in mutants]  # type: ignore[union-attr]
    assert kept == [15, 7]  # x * 3 gets double(2) wrong, x + 2 gets double(0) wrong: each mutant is kept
    only_two = "Example: double(2) == 4"
    kept = [_namespace(example_breaking(program, m, only_two).action)["double"](5) for m in mutants]  # type: ignore
    assert kept == [15, None]  # x + 2 gets double(2) right: every function returns None instead
    assert example_breaking(program, mutants[0], "no examples here") is None


def test_example_breaking_ignores_examples_the_reference_itself_gets_wrong() -> None:
    program = program_in("def half(x):\n    return x / 2\n")
    assert program is not None
    mutant = code_mutants(program, 8, spread=True)[0]  # x / 3
    right_wrong = "half(1) -> 0.5; half(3) -> 1.2"  # the reference gets the second (mistyped) example wrong too
    assert _namespace(example_breaking(program, mutant, right_wrong).action)["half"](4) == 4 / 3  # type: ignore
    only_wrong = "half(3) -> 1.2; half(8) -> 4.02"  # examples the reference misses decide nothing
    assert _namespace(example_breaking(program, mutant, only_wrong).action)["half"](4) is None  # type: ignore


def test_spread_mutants_put_literals_first_and_reach_deep_sites() -> None:
    code = "def f(xs):\n" + "".join(f"    a{i} = xs[{i}] + {i + 1}\n" for i in range(12)) + "    return a11\n"
    program = program_in(code)
    assert program is not None
    first = code_mutants(program)
    spread = code_mutants(program, 4, spread=True)
    assert len(first) == 6 and all("a11 = xs[11] + 12" in m.action for m in first)  # the first sites only
    assert [m.what.split()[1] for m in spread] == ["literal", "literal", "operator", "operator"]
    assert any("a11 = xs[11] + 12" not in m.action for m in spread[:2])  # the last literals are reached


def test_json_call_renders_other_arguments_in_place() -> None:
    call = json_call('Now: {"tool": "write_file", "path": "a.txt", "content": "12"} done')
    assert call is not None and call.tool == "write_file" and call.arguments == {"path": "a.txt", "content": "12"}
    again = json.loads(call.render({"path": "a.txt", "content": "13"})[5:-5])
    assert again == {"tool": "write_file", "path": "a.txt", "content": "13"}
    nested = json_call('{"name": "book", "arguments": {"slot": 3}}')
    assert nested is not None and nested.tool == "book" and json.loads(nested.render({"slot": 4})) == {
        "name": "book", "arguments": {"slot": 4}}
    assert json_call("move north") is None


def test_a_float_one_unit_of_its_last_shown_place_away_meets_the_example() -> None:
    program = program_in("def cents(x):\n    return round(x, 2)\n")
    assert program is not None
    finer = code_mutants(program, 8, spread=True)[0]  # round(x, 3): 1.235 for the shown 1.23
    assert "round(x, 3)" in finer.action
    variant = example_breaking(program, finer, "cents(1.23456) -> 1.23")
    assert variant is not None and _namespace(variant.action)["cents"](2.0) is None


def test_hollow_results_keep_the_number_of_groups_and_nothing_else() -> None:
    from spade_core.validation.mutations import hollow_results

    source = "def split(xs, k):\n    return [xs[i::k] for i in range(k)]\n\n\ndef total(xs):\n    return sum(xs)\n"
    variant = hollow_results(program_in(f"```python\n{source}```"))
    assert variant is not None
    code = program_in(variant.action)
    assert code is not None
    names: dict[str, object] = {}
    exec(compile(code.code, "<hollow>", "exec"), names)  # the test's own program, not an environment's
    assert names["split"]([1, 2, 3, 4], 2) == [[], []] and names["total"]([1, 2]) is None


def test_emptied_inputs_clear_what_the_program_was_given_and_return_an_empty_result() -> None:
    from spade_core.validation.mutations import emptied_inputs

    source = ("def pack(weights, capacity):\n    return [[w] for w in weights]\n\n\n"
              "def total(counts):\n    return sum(counts.values())\n")
    variant = emptied_inputs(program_in(f"```python\n{source}```"))
    assert variant is not None
    code = program_in(variant.action)
    assert code is not None
    names: dict[str, object] = {}
    exec(compile(code.code, "<emptied>", "exec"), names)  # the test's own program, not an environment's
    weights, counts = [3, 1, 2], {"a": 2}
    assert names["pack"](weights, capacity=5) == [] and weights == []
    assert names["total"](counts) is None and counts == {}


def test_a_named_exception_is_swapped_for_a_stand_in_only_where_the_task_names_it() -> None:
    from spade_core.validation.mutations import STANDIN_ERROR, other_errors

    source = "def decode(code):\n    if code not in BOOK:\n        raise ValueError('unknown')\n    return BOOK[code]\n"
    program = program_in(f"```python\n{source}```")
    variant = other_errors(program, "Return the word; raise ValueError for an unknown code.")
    assert variant is not None and f"raise {STANDIN_ERROR}('unknown')" in variant.action
    assert other_errors(program, "Return the word for each code.") is None  # the task names no exception
    assert other_errors(program, "Raise KeyError for an unknown code.") is None  # it raises another than named
