"""The policy is sound by construction: nothing reachable from the allowed names is an escape primitive.

The walk starts at every allowed builtin and every value of every stand-in module of the merged allow-list (the
plugins' included), and follows what restricted code can follow: attribute reads through the policy's own
``getattr``, ``type()`` of each object, items of containers, and the return values of allowed calls on sample
inputs. No object it reaches may be a metaclass, a class factory (a class built by a metaclass other than
``type`` that the allow-list does not expose itself, ``FunctionType``, ``CodeType``), a module, code, frame or
traceback object, the real builtins (module or dict), a module's globals, or a reflective builtin.
"""

from __future__ import annotations

import builtins
import collections
import operator
import types
from typing import Any

import pytest

from spade_core.sandbox import guards, violations
from spade_core.sandbox.allowlist import build_standins, exposed_names, merged_allowlist
from spade_core.sandbox.policy import compile_env_source
from spade_core.sandbox.wrappers import sandbox_dataclass

STANDINS, PROBLEMS = build_standins(merged_allowlist())
BUILTINS = guards.make_builtins(STANDINS)
ALLOWED = {name: set(exposed_names(mod)) for name, mod in STANDINS.items()}
EXPOSED = [object.__getattribute__(mod, name) for mod in STANDINS.values() for name in exposed_names(mod)]
EXPOSED_CLASSES = {id(v) for v in EXPOSED if isinstance(v, type)}
SAMPLES: list[tuple[Any, ...]] = [(), (0,), (3,), (2, 3), ("ab",), ("a", "b"), ([3, 1, 2],), ({"a": 1},),
                                  ((1, 2),), (1.5,), ("x", 2), ([1, 2], [3])]
ESCAPE_IDS = {id(getattr(builtins, name)) for name in guards.ESCAPE_BUILTINS} | {
    id(builtins), id(builtins.__dict__), id(operator.attrgetter), id(operator.methodcaller), id(type),
    id(types.FunctionType), id(types.CodeType), id(types.MethodType), id(types.ModuleType), id(types.FrameType),
    id(object.__getattribute__), id(object.__setattr__), id(type.__call__), id(collections.namedtuple),
}


def escape_kind(obj: Any) -> str | None:
    if id(obj) in ESCAPE_IDS:
        return "escape builtin or class factory"
    if isinstance(obj, (types.ModuleType, types.CodeType, types.FrameType, types.TracebackType)):
        return type(obj).__name__
    if isinstance(obj, type):
        if issubclass(obj, type):
            return "metaclass"
        if type(obj) is not type and id(obj) not in EXPOSED_CLASSES:
            return f"class built by the metaclass {type(obj).__name__}"
    if isinstance(obj, dict) and ("__builtins__" in obj or "__import__" in obj):
        return "a module's globals or a builtins dict"
    return None


def walk() -> tuple[int, list[str]]:
    found: list[str] = []
    seen: set[int] = set()
    keep: list[Any] = []
    queue: list[tuple[Any, str, int]] = [(v, f"builtin {k}", 0) for k, v in BUILTINS.items() if k[:2] != "__"]
    queue += [(object.__getattribute__(mod, n), f"{m}.{n}", 0) for m, mod in STANDINS.items() for n in exposed_names(mod)]
    while queue and len(seen) < 60_000:
        obj, path, depth = queue.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        keep.append(obj)
        kind = escape_kind(obj)
        if kind is not None:
            found.append(f"{path}: {kind}")
            continue
        if depth >= 4:
            continue
        children: list[tuple[Any, str]] = [(guards.safe_type(obj), f"type({path})")]
        try:
            names = dir(obj)
        except Exception:  # an object without dir() has no attributes to walk
            names = []
        for name in names:
            try:
                children.append((guards.guarded_getattr(obj, name), f"{path}.{name}"))
            except (Exception, violations.PolicyViolation):  # refused or raising: not reachable
                pass
        if isinstance(obj, (list, tuple, set, frozenset, collections.deque)):
            children += [(item, f"{path}[...]") for item in list(obj)[:50]]
        elif isinstance(obj, (dict, types.MappingProxyType)):
            children += [(item, f"{path}[...]") for pair in list(obj.items())[:50] for item in pair]
        if callable(obj) and depth <= 1 and not isinstance(obj, guards.TypeName):
            for args in SAMPLES:
                try:
                    children.append((obj(*args), f"{path}{args!r}"))
                except (Exception, violations.PolicyViolation):  # wrong arguments: nothing returned
                    pass
        guards.reset_call_state()
        queue += [(child, child_path, depth + 1) for child, child_path in children]
    guards.reset_call_state()
    return len(seen), found


def test_nothing_reachable_is_an_escape_primitive() -> None:
    assert PROBLEMS == {}
    count, found = walk()
    assert count > 2000, f"the walk reached only {count} objects"
    assert not found, "\n".join(found[:40])


@pytest.mark.parametrize("value", [None, 1, len, lambda: 0, print, object(), iter([]), (x for x in [])])
def test_type_hands_out_no_class_factory(value: Any) -> None:
    result = guards.safe_type(value)
    assert escape_kind(result) is None
    assert not isinstance(result, type) or result in guards._REACHABLE_CLASSES or result is type(value)


def test_type_of_allowed_classes_is_a_description() -> None:
    fraction = object.__getattribute__(STANDINS["fractions"], "Fraction")
    described = guards.safe_type(fraction)
    assert isinstance(described, guards.TypeName) and repr(described) == "<class 'ABCMeta'>"
    assert guards.safe_type(fraction) == described and guards.safe_type(3) is int
    with pytest.raises(violations.PolicyViolation):
        described("Evil", (), {})


def run(source: str) -> dict[str, Any]:
    code = compile_env_source(source, allowed_modules=ALLOWED)
    module = guards.make_module(BUILTINS, "soundness_mod")
    guards.reset_call_state()
    try:
        exec(code, module.__dict__)  # restricted code under test
    finally:
        guards.drop_module("soundness_mod")
    return module.__dict__


def test_ordinary_dataclasses_namedtuples_and_heaps_still_work() -> None:
    ns = run(
        "from dataclasses import dataclass, field\n"
        "from collections import namedtuple\n"
        "import heapq\n"
        "@dataclass(order=True)\n"
        "class Card:\n"
        "    rank: int\n"
        "    suit: str = 'S'\n"
        "    tags: list = field(default_factory=list)\n"
        "Point = namedtuple('Point', 'x y')\n"
        "h = []\n"
        "heapq.heappush(h, 3)\n"
        "heapq.heappush(h, 1)\n"
        "cards = sorted([Card(3), Card(1, 'H')])\n"
        "p = Point(1, 2)._replace(y=5)\n"
        "kind = type(cards[0]) is Card\n"
    )
    assert [c.rank for c in ns["cards"]] == [1, 3] and ns["p"] == (1, 5) and ns["h"] == [1, 3] and ns["kind"]


@pytest.mark.parametrize("source", [
    "from dataclasses import dataclass\nfrom fractions import Fraction\ndataclass(Fraction)",
    "from dataclasses import dataclass\ndataclass(int)",
    "from dataclasses import dataclass\ndataclass(frozen=True, slots=True)",
    "from fractions import Fraction\nclass F(Fraction):\n    pass",
    "from typing import Mapping\nclass M(Mapping):\n    pass",
    "from spade_tools.calculator import Calculator\nCalculator.TOOL_DEFS[0].parameters['x'] = 1",
    "from spade_tools.calculator import Calculator\nt = Calculator.TOOL_DEFS[0].parameters\nt.update({'x': 1})",
    "from spade_tools.calculator import Calculator\ndict.setdefault(Calculator.TOOL_DEFS[0].parameters, 'x', 1)",
    "from spade_tools.calculator import Calculator\nt = Calculator.TOOL_DEFS[0].parameters\nt |= {'x': 1}",
    "import re\ntype(re.I)('Evil', 'A B')",
    "f = lambda: 0\ntype(f)(None, {})",
])
def test_escape_attempts_are_policy_refusals(source: str) -> None:
    with pytest.raises(violations.PolicyViolation):
        run(source)


def test_shared_tables_stay_pristine_for_every_instance() -> None:
    ns = run("from spade_tools.calculator import Calculator\nsnapshot = dict(Calculator.TOOL_DEFS[0].parameters)\n"
             "mine = dict(Calculator.TOOL_DEFS[0].parameters)\nmine['x'] = 1\n")
    assert "x" not in ns["snapshot"] and ns["mine"]["x"] == 1


def test_regex_cache_keys_are_plain_so_instances_cannot_collide() -> None:
    # re keeps one cache per process keyed by (type, pattern, flags): flags whose __eq__ always holds would hit
    # another instance's entry and hand it that instance's compiled pattern
    first = run("import re\np = re.compile('abc', re.I)\n")["p"]
    second = run("import re\nclass F(int):\n    def __hash__(self):\n        return hash(re.I)\n"
                 "    def __eq__(self, other):\n        return True\n"
                 "p = re.compile('abc', F(0))\nm = re.match('abc', 'ABC', flags=F(0))\n")
    assert first.flags & 2
    assert not second["p"].flags & 2 and second["m"] is None


def test_type_of_ordinary_values_still_works_in_isinstance() -> None:
    ns = run("import re\nok = [isinstance(None, type(None)), type(re.compile('a')) is type(re.compile('b')),\n"
             "      isinstance({}.keys(), type({1: 2}.keys())), type(3) is int, type([]) == list]\n")
    assert ns["ok"] == [True, True, True, True, True]


def test_dataclass_refuses_field_names_that_are_not_identifiers() -> None:
    # no policy path builds such a class (3-argument type() and metaclasses are refused); the wrapper still checks,
    # because dataclasses pastes field names into the source it execs
    module = guards.make_module(BUILTINS, "injection_mod")
    try:
        for bad in ("x=__import__('os').system('true')", "__class__", "for"):
            cls = guards.sandbox_metaclass("Injected", (), {"__module__": "injection_mod", "__annotations__": {bad: int}})
            with pytest.raises(violations.PolicyViolation):
                sandbox_dataclass(cls)
        good = guards.sandbox_metaclass("Fine", (), {"__module__": "injection_mod", "__annotations__": {"x": int}})
        assert sandbox_dataclass(good)(x=3).x == 3
    finally:
        guards.drop_module("injection_mod")
    assert module is not None
