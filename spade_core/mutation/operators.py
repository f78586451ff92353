"""Mutation operators modelled on the mistakes designers make, as ``ast`` rewrites of an environment module.

Each operator lists its sites in a module (:class:`Site`: where, and what the rewrite does there) and rewrites one
site at a time, so one mutant differs from its original in exactly one place. The rewritten module is rendered with
``ast.unparse`` (comments and layout are lost; the code is the same code). Whether a mutant is observably worse
than its original is the differential oracle's question (:mod:`spade_core.mutation.oracle`), not the operator's.
"""

from __future__ import annotations

import ast
import copy
import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from spade_registry.syntax import compile_tree, parse_source

MUTANT_RNG = "mutant_rng"
"""The attribute a re-drawn secret keeps the reset's generator in."""


@dataclass(frozen=True)
class Site:
    """One place an operator can rewrite: ``apply`` rewrites a copy of the module there; ``what`` says how."""

    what: str
    apply: Callable[[ast.Module], None]


@dataclass(frozen=True)
class Mutant:
    operator: str
    what: str
    source: str


@dataclass(frozen=True)
class Module:
    """A parsed environment module: its tree, environment class, manifest literal and top reward."""

    tree: ast.Module
    env_class: ast.ClassDef
    spec: dict

    @property
    def top_reward(self) -> float:
        return float(self.spec.get("reward_range", [0.0, 1.0])[1])

    def method(self, name: str) -> ast.FunctionDef | None:
        return next((n for n in self.env_class.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def parse_module(source: str) -> Module:
    """The module's tree, its environment class (the class with ``reset`` and ``step``) and ``ENV_SPEC``; raises
    ValueError naming what is missing."""
    tree = parse_source(source)
    assert isinstance(tree, ast.Module)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)
               and {"reset", "step"} <= {m.name for m in n.body if isinstance(m, ast.FunctionDef)}]
    specs = [n for n in tree.body if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in n.targets)]
    if len(classes) != 1 or len(specs) != 1:
        raise ValueError(f"expected one class with reset and step and one ENV_SPEC, found {len(classes)} and "
                         f"{len(specs)}")
    return Module(tree, classes[0], ast.literal_eval(specs[0].value))


# -- helpers -------------------------------------------------------------------------------------------------
def _path_to(tree: ast.AST, target: ast.AST) -> list[tuple[str, int | None]]:
    """The field path from ``tree`` to ``target`` (so the same node can be found in a deep copy)."""
    def walk(node: ast.AST, path: list[tuple[str, int | None]]) -> list[tuple[str, int | None]] | None:
        if node is target:
            return path
        for name, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for i, child in enumerate(items):
                if isinstance(child, ast.AST):
                    found = walk(child, [*path, (name, i if isinstance(value, list) else None)])
                    if found is not None:
                        return found
        return None

    found = walk(tree, [])
    if found is None:
        raise ValueError("the node is not in the tree")
    return found


def _follow(tree: ast.AST, path: list[tuple[str, int | None]]) -> ast.AST:
    node = tree
    for name, index in path:
        value = getattr(node, name)
        node = value[index] if index is not None else value
    return node


def _at(m: Module, node: ast.AST, what: str, rewrite: Callable[[ast.AST], None]) -> Site:
    """A site that rewrites the copy of ``node`` in a copied module."""
    path = _path_to(m.tree, node)
    return Site(f"line {getattr(node, 'lineno', '?')}: {what}", lambda tree: rewrite(_follow(tree, path)))


def _replace_field(parent: ast.AST, name: str, index: int | None, new: ast.AST) -> None:
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


def _expr(text: str) -> ast.expr:
    node = parse_source(text, mode="eval").body
    return node


def _self_attr(node: ast.AST) -> str | None:
    """``X`` for ``self.X``, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _class_nodes(m: Module, kind: type) -> Iterator[ast.AST]:
    for node in ast.walk(m.env_class):
        if isinstance(node, kind):
            yield node


def _module_nodes(m: Module, kind: type) -> Iterator[ast.AST]:
    """Nodes of ``kind`` in the module's code (ENV_SPEC excluded), in reading order."""
    found = [n for stmt in m.tree.body if not (isinstance(stmt, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in stmt.targets)) for n in ast.walk(stmt)
        if isinstance(n, kind)]
    return iter(sorted(found, key=lambda n: (n.lineno, n.col_offset)))


def _number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _step_returns(m: Module) -> Iterator[ast.Return]:
    """``return obs, reward, terminated, truncated, info`` statements of the class whose reward is a number."""
    for node in _class_nodes(m, ast.Return):
        value = node.value
        if isinstance(value, ast.Tuple) and len(value.elts) == 5 and _number(value.elts[1]):
            yield node


def _claims_success(info: ast.expr) -> bool:
    return isinstance(info, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "success" and isinstance(v, ast.Constant) and v.value is True
        for k, v in zip(info.keys, info.values, strict=True))


# -- operators -----------------------------------------------------------------------------------------------
_WIDER = {ast.Lt: ast.LtE, ast.Gt: ast.GtE}


def widen_comparison(m: Module) -> Iterator[Site]:
    """A strict comparison made inclusive (``<`` to ``<=``, ``>`` to ``>=``): an off-by-one bound."""
    for node in _module_nodes(m, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in _WIDER:
                def rewrite(n: ast.AST, i: int = i) -> None:
                    n.ops[i] = _WIDER[type(n.ops[i])]()
                yield _at(m, node, f"{type(op).__name__} made inclusive", rewrite)


def equality_tolerance(m: Module) -> Iterator[Site]:
    """An exact ``a == b`` replaced by ``a`` within 1 of ``b`` (for anything that subtracts): a tolerance the task
    never states."""
    for node in _module_nodes(m, ast.Compare):
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            def rewrite(n: ast.AST) -> None:
                a, b = ast.unparse(n.left), ast.unparse(n.comparators[0])
                near = _expr(f"({a} == {b} or (hasattr({a}, '__sub__') and hasattr({b}, '__sub__') and "
                             f"not isinstance({a}, (set, frozenset)) and abs({a} - {b}) <= 1))")
                n.__class__, n.__dict__ = near.__class__, near.__dict__
            yield _at(m, node, "== within 1", rewrite)


def drop_condition(m: Module) -> Iterator[Site]:
    """A condition dropped: one operand of an ``and`` removed, or a guard that returns early never taken."""
    for node in _module_nodes(m, ast.BoolOp):
        if isinstance(node.op, ast.And):
            for i in range(len(node.values)):
                def rewrite(n: ast.AST, i: int = i) -> None:
                    del n.values[i]
                    if len(n.values) == 1:
                        only = n.values[0]
                        n.__class__, n.__dict__ = only.__class__, only.__dict__
                yield _at(m, node, f"operand {i + 1} of an `and` dropped", rewrite)
    for node in _class_nodes(m, ast.If):
        if not node.orelse and isinstance(node.body[-1], ast.Return):
            def rewrite(n: ast.AST) -> None:
                n.test = ast.Constant(False)
            yield _at(m, node, "a guard that returns early dropped", rewrite)


def _tolerance_names(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and "tol" in n.id.lower() for n in ast.walk(node))


def _times_100(n: ast.AST) -> None:
    """Scale an expression by 100 in place: a number directly (0 becomes 1), anything else as ``(expr) * 100``."""
    if _number(n):
        n.value = n.value * 100 if n.value else 1
        return
    scaled = ast.BinOp(copy.deepcopy(n), ast.Mult(), ast.Constant(100))
    n.__class__, n.__dict__ = scaled.__class__, scaled.__dict__


def _tolerance_value(node: ast.AST) -> bool:
    """A value a tolerance can be: a number, or arithmetic or a call over numbers (``Fraction(1, 1000)``, ``1e-3 * k``)
    with no text in it."""
    return _number(node) or (isinstance(node, (ast.BinOp, ast.Call)) and not any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(node)))


def multiply_tolerance(m: Module) -> Iterator[Site]:
    """A tolerance multiplied by 100: the constant an ``abs(...)`` difference is compared with, a ``*tol*=`` keyword,
    or the value (a number, or a number built by a call or arithmetic, e.g. ``Fraction(1, 1000)``) assigned to a name
    with ``tol`` in it."""
    for node in _module_nodes(m, ast.Compare):
        sides = [node.left, *node.comparators]
        if any(isinstance(s, ast.Call) and isinstance(s.func, ast.Name) and s.func.id == "abs" for s in sides):
            for side in sides:
                for const in ast.walk(side):
                    if _number(const) and not isinstance(side, ast.Call):
                        yield _at(m, const, f"tolerance {const.value} x100", _times_100)
    for node in _module_nodes(m, ast.keyword):
        if node.arg and "tol" in node.arg and _tolerance_value(node.value):
            yield _at(m, node.value, f"{node.arg}={ast.unparse(node.value)} x100", _times_100)
    for node in _module_nodes(m, ast.Assign):
        if _tolerance_value(node.value) and any(_tolerance_names(t) for t in node.targets):
            yield _at(m, node.value, f"tolerance {ast.unparse(node.value)} x100", _times_100)


def reset_forgets_field(m: Module) -> Iterator[Site]:
    """A field ``reset`` no longer sets: it keeps what the previous episode (or ``__init__``) left."""
    reset = m.method("reset")
    assert reset is not None
    for i, stmt in enumerate(reset.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _self_attr(stmt.targets[0]):
            name = _self_attr(stmt.targets[0])

            def rewrite(n: ast.AST, i: int = i) -> None:
                n.body[i] = ast.Pass()
            yield _at(m, reset, f"reset forgets self.{name}", rewrite)


def _reset_locals(reset: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in reset.args.args}
    for node in ast.walk(reset):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names - {"rng", "self"}


def redraw_secret(m: Module) -> Iterator[Site]:
    """A secret drawn in ``reset`` drawn again at every ``step`` (from the same generator, kept on the instance)."""
    reset, step = m.method("reset"), m.method("step")
    assert reset is not None and step is not None
    locals_ = _reset_locals(reset)
    for stmt in reset.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _self_attr(stmt.targets[0])):
            continue
        names = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
        if "rng" not in names or names & locals_:
            continue
        draw = ast.unparse(stmt).replace("rng.", f"self.{MUTANT_RNG}.")
        if "rng" in {n.id for n in ast.walk(parse_source(draw)) if isinstance(n, ast.Name)}:
            continue  # the generator is passed on, not called: leave it

        def rewrite(n: ast.AST, draw: str = draw) -> None:
            reset_n, step_n = (next(f for f in n.body if isinstance(f, ast.FunctionDef) and f.name == name)
                               for name in ("reset", "step"))
            reset_n.body.insert(0, parse_source(f"self.{MUTANT_RNG} = rng").body[0])
            step_n.body.insert(0, parse_source(draw).body[0])
        yield _at(m, m.env_class, f"self.{_self_attr(stmt.targets[0])} re-drawn in step", rewrite)


def _pay(m: Module, node: ast.Return) -> Callable[[ast.AST], None]:
    top = m.top_reward

    def rewrite(n: ast.AST) -> None:
        n.value.elts[1] = ast.Constant(top)
    return rewrite


def reward_non_final(m: Module) -> Iterator[Site]:
    """The top reward paid for a move that does not end the episode."""
    for node in _step_returns(m):
        elts = node.value.elts
        if (isinstance(elts[2], ast.Constant) and elts[2].value is False and isinstance(elts[3], ast.Constant)
                and elts[3].value is False and elts[1].value < m.top_reward):
            yield _at(m, node, "top reward for a non-final move", _pay(m, node))


def reward_out_of_turns(m: Module) -> Iterator[Site]:
    """The top reward paid when an episode ends without success (out of turns or guesses, a wrong final answer)."""
    for node in _step_returns(m):
        elts = node.value.elts
        ends = any(isinstance(e, ast.Constant) and e.value is True for e in elts[2:4])
        if ends and elts[1].value < m.top_reward and not _claims_success(elts[4]):
            yield _at(m, node, "top reward for an ending without success", _pay(m, node))


def _judging_methods(m: Module) -> list[ast.FunctionDef]:
    """``step`` and every method of the class it calls, directly or through another (where actions are judged)."""
    methods = {n.name: n for n in m.env_class.body if isinstance(n, ast.FunctionDef)}
    seen, todo = [], ["step"]
    while todo:
        name = todo.pop()
        if name in seen or name not in methods:
            continue
        seen.append(name)
        todo += [c.func.attr for c in ast.walk(methods[name]) if isinstance(c, ast.Call)
                 and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
                 and c.func.value.id == "self"]
    return [methods[name] for name in seen]


def _renders_text(loop: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether a loop only writes text: a comprehension of f-strings or inside a ``join``, a ``for`` whose body
    appends f-strings."""
    parent = parents.get(loop)
    if isinstance(loop, ast.comprehension):
        if isinstance(parent, (ast.ListComp, ast.GeneratorExp)) and isinstance(parent.elt, ast.JoinedStr):
            return True
        call = parents.get(parent)
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "join"
    appends = [n for n in ast.walk(loop) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr == "append"]
    return bool(appends) and all(n.args and isinstance(n.args[0], ast.JoinedStr) for n in appends)


def last_item_only(m: Module) -> Iterator[Site]:
    """A check that reads only the last item of a sequence the instance keeps (the last action of a history): a loop
    over ``self.X`` in ``step`` or a method it calls, unless the loop only writes text (a display of the history
    cut to its last line is a different mistake, and the reference, which reads the instance, never notices it)."""
    loops = []
    for method in _judging_methods(m):
        parents = {child: node for node in ast.walk(method) for child in ast.iter_child_nodes(node)}
        loops += [n for n in ast.walk(method) if isinstance(n, (ast.For, ast.comprehension))
                  and _self_attr(n.iter) and not _renders_text(n, parents)]
    for node in sorted(loops, key=lambda n: (n.iter.lineno, n.iter.col_offset)):
        def rewrite(n: ast.AST) -> None:
            n.iter = ast.Subscript(n.iter, ast.Slice(ast.UnaryOp(ast.USub(), ast.Constant(1)), None), ast.Load())
        yield _at(m, node, f"only the last of self.{_self_attr(node.iter)} read", rewrite)


def unused_difficulty(m: Module) -> Iterator[Site]:
    """A difficulty knob accepted and ignored: ``__init__`` keeps the default whatever value is passed."""
    init = m.method("__init__")
    knobs = m.spec.get("difficulty") or {}
    if init is None:
        return
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in knobs:
            default = knobs[node.value.id]["default"]

            def rewrite(n: ast.AST, default: object = default) -> None:
                n.value = ast.Constant(default)
            yield _at(m, node, f"difficulty {node.value.id} ignored", rewrite)


def read_writes(m: Module) -> Iterator[Site]:
    """A read that writes: ``privileged_hint`` (a read) also moves a numeric field that ``reset`` sets."""
    reset, hint = m.method("reset"), m.method("privileged_hint")
    if reset is None or hint is None:
        return
    for stmt in reset.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _self_attr(stmt.targets[0]) and (
                _number(stmt.value) or isinstance(stmt.value, (ast.BinOp, ast.Call))):
            name = _self_attr(stmt.targets[0])

            def rewrite(n: ast.AST, name: str | None = name) -> None:
                write = parse_source(f"if isinstance(self.{name}, int) and not isinstance(self.{name}, bool):\n"
                                  f"    self.{name} = self.{name} + 1").body[0]
                n.body.insert(1 if ast.get_docstring(n) else 0, write)
            yield _at(m, hint, f"privileged_hint() adds 1 to self.{name}", rewrite)


OPERATORS: dict[str, Callable[[Module], Iterator[Site]]] = {
    "widen_comparison": widen_comparison,
    "equality_tolerance": equality_tolerance,
    "drop_condition": drop_condition,
    "multiply_tolerance": multiply_tolerance,
    "reset_forgets_field": reset_forgets_field,
    "redraw_secret": redraw_secret,
    "reward_non_final": reward_non_final,
    "reward_out_of_turns": reward_out_of_turns,
    "last_item_only": last_item_only,
    "unused_difficulty": unused_difficulty,
    "read_writes": read_writes,
}
"""Every operator by name, in the order reports list them."""


def each_mutant(source: str, operator: str, *, label: str = "") -> Iterator[Mutant]:
    """Every mutant of ``source`` by ``operator``, one rewrite each, its sites in an order shuffled by a generator
    seeded by ``label`` and the operator (so a run is reproducible and a caller that stops early has sampled the
    sites evenly); made lazily, so a caller can stop once it has what it needs. A rewrite that does not compile is
    dropped."""
    if operator not in OPERATORS:
        raise ValueError(f"unknown mutation operator {operator!r}; known: {', '.join(OPERATORS)}")
    module = parse_module(source)
    found = list(OPERATORS[operator](module))
    random.Random(f"{label}:{operator}").shuffle(found)
    for site in found:
        tree = copy.deepcopy(module.tree)
        site.apply(tree)
        text = ast.unparse(ast.fix_missing_locations(tree))
        try:
            compile_tree(parse_source(text, "<mutant>"), "<mutant>", "exec")
        except (SyntaxError, ValueError):
            continue
        yield Mutant(operator, site.what, text)


def mutants(source: str, operator: str, *, sites: int | None = None, label: str = "") -> list[Mutant]:
    """The first ``sites`` mutants of :func:`each_mutant` (all of them when None)."""
    return list(itertools.islice(each_mutant(source, operator, label=label), sites))
