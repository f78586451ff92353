"""Static policy: compile designer code with RestrictedPython, adapted so ordinary environment code passes.

On top of RestrictedPython's :class:`RestrictingNodeTransformer` this policy

- rewrites augmented attribute/subscript assignment (``self.steps += 1``, ``d[k] += 1``) into a guarded read,
  an in-place operation and a guarded write, evaluating the target's sub-expressions once (so
  ``counts[rng.choice(xs)] += 1`` draws once, as in plain Python);
- allows annotated assignment (``x: int = 1``);
- allows single-underscore names (``_helper``, ``self._get_obs``) that do not end in ``_`` (RestrictedPython's
  own hooks are all ``_name_``, so they can never be shadowed); dunders stay forbidden except the usual special
  methods defined *inside a class* (``__init__``, ``__repr__``, ``__len__``, comparisons, arithmetic, ...) and
  ``super().__init__``. Whose ``_`` attributes may be read is decided at run time (:mod:`.guards`);
- checks imports against the allow-list before running anything, and refuses names of builtins the sandbox
  does not have (``open``, ``eval``, ``globals``, ...) with a message that says so.

Every refusal names the line and the rule: ``line 12: import of 'os' is not allowed; allowed modules: ...``.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Collection, Mapping

from RestrictedPython.transformer import (
    INSPECT_ATTRIBUTES,
    IOPERATOR_TO_STR,
    RestrictingNodeTransformer,
    copy_locations,
)

from spade_core import linear_re
from spade_core.sandbox.guards import import_refusal
from spade_registry.syntax import compile_tree, parse_source

MAX_SOURCE_CHARS = 200_000
MAX_ERRORS_SHOWN = 6

_PRIVATE = linear_re.compile(r"_[A-Za-z0-9][A-Za-z0-9_]*")
_RESERVED_PRIVATE = linear_re.compile(r"_tmp\d+|_print|_spade.*")

SPECIAL_METHODS = frozenset(
    {
        "__init__", "__repr__", "__str__", "__len__", "__bool__", "__hash__", "__iter__", "__next__", "__contains__",
        "__getitem__", "__setitem__", "__delitem__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
        "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__neg__", "__pos__", "__abs__",
        "__post_init__",
    }
)
"""Dunder methods a class in restricted code may define (Python calls them; defining them reaches nothing)."""

UNAVAILABLE_BUILTINS = frozenset(
    {
        "open", "eval", "exec", "compile", "globals", "locals", "vars", "dir", "input", "breakpoint", "help", "exit",
        "quit", "memoryview", "copyright", "credits", "license",
    }
)


class PolicyRejection(Exception):
    """The static policy refused the source; ``problems`` holds one ``line N: rule`` string per refusal."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = problems[:MAX_ERRORS_SHOWN]
        more = f" (and {len(problems) - len(shown)} more)" if len(problems) > len(shown) else ""
        super().__init__("; ".join(shown) + more)


def is_private_name(name: str) -> bool:
    """``_helper``-style names allowed in restricted code: one leading ``_``, no trailing ``_``, not reserved."""
    return bool(_PRIVATE.fullmatch(name)) and not name.endswith("_") and not _RESERVED_PRIVATE.fullmatch(name)


def _is_super_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _bound_names(tree: ast.AST) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


class SpadePolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer with SPADE's rules (see the module docstring)."""

    def __init__(
        self,
        errors: list[str] | None = None,
        warnings: list[str] | None = None,
        used_names: dict[str, bool] | None = None,
        *,
        allowed_modules: Mapping[str, Collection[str]] | None = None,
        bound_names: Collection[str] = (),
    ) -> None:
        super().__init__(errors, warnings, used_names)
        self.allowed_modules = allowed_modules
        self.bound_names = frozenset(bound_names)

    def error(self, node: ast.AST, info: str) -> None:
        self.errors.append(f"line {getattr(node, 'lineno', '?')}: {info}")

    # -- names ------------------------------------------------------------------------------------------------
    def check_name(self, node: ast.AST, name: str | None, allow_magic_methods: bool = False) -> None:
        if name is None:
            return
        if is_private_name(name):
            return
        if allow_magic_methods and name in SPECIAL_METHODS and getattr(node, "col_offset", 0) != 0:
            return
        if name.startswith("_") and name != "_":
            kind = "dunder names are not allowed" if name.startswith("__") else (
                "names starting with '_' must not end with '_' (reserved for the sandbox's guards)"
            )
            self.error(node, f"name {name!r} is not allowed: {kind}")
            return
        super().check_name(node, name, allow_magic_methods)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in UNAVAILABLE_BUILTINS and node.id not in self.bound_names:
            self.error(node, f"{node.id!r} is not available in the sandbox (no file access, eval or introspection)")
        return super().visit_Name(node)

    # -- attributes -----------------------------------------------------------------------------------------
    def _check_attr(self, node: ast.Attribute) -> bool:
        attr = node.attr
        ok = True
        if attr.startswith("_") and attr != "_" and not is_private_name(attr):
            if not (attr == "__init__" and _is_super_call(node.value)):
                self.error(node, f"attribute {attr!r} is not allowed: dunder attributes are blocked"
                           if attr.startswith("__") else
                           f"attribute {attr!r} is not allowed: '_' names must not end with '_'")
                ok = False
        if attr in INSPECT_ATTRIBUTES:
            self.error(node, f"attribute {attr!r} is not allowed (frame/code introspection)")
            ok = False
        return ok

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self._check_attr(node)
        node = self.node_contents_visit(node)
        if isinstance(node.ctx, ast.Load):
            new = ast.Call(func=ast.Name("_getattr_", ast.Load()), args=[node.value, ast.Constant(node.attr)], keywords=[])
            copy_locations(new, node)
            return new
        wrapped = ast.Call(func=ast.Name("_write_", ast.Load()), args=[node.value], keywords=[])
        copy_locations(wrapped, node.value)
        node.value = wrapped
        return node

    # -- statements ------------------------------------------------------------------------------------------
    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        return self.node_contents_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.AST]:
        target = node.target
        if isinstance(target, ast.Name):
            return super().visit_AugAssign(node)
        op = IOPERATOR_TO_STR[type(node.op)]
        prelude: list[ast.stmt] = []
        temps: list[str] = []

        def hoist(expr: ast.expr) -> ast.expr:
            expr = self.visit(expr)
            if isinstance(expr, (ast.Name, ast.Constant)):
                return expr
            name = self.gen_tmp_name()
            temps.append(name)
            assign = ast.Assign(targets=[ast.Name(name, ast.Store())], value=expr)
            copy_locations(assign, node)
            prelude.append(assign)
            return ast.Name(name, ast.Load())

        def load(expr: ast.expr) -> ast.expr:
            if isinstance(expr, ast.Name):
                return ast.Name(expr.id, ast.Load())
            if isinstance(expr, ast.Constant):
                return ast.Constant(expr.value)
            return expr

        if isinstance(target, ast.Attribute):
            if not self._check_attr(target):
                return node
            base = hoist(target.value)
            read: ast.expr = ast.Call(ast.Name("_getattr_", ast.Load()), [load(base), ast.Constant(target.attr)], [])
            store: ast.expr = ast.Attribute(
                value=ast.Call(ast.Name("_write_", ast.Load()), [load(base)], []), attr=target.attr, ctx=ast.Store()
            )
        else:
            assert isinstance(target, ast.Subscript)
            base = hoist(target.value)
            key = hoist(target.slice)
            read = ast.Call(ast.Name("_getitem_", ast.Load()), [load(base), load(key)], [])
            store = ast.Subscript(
                value=ast.Call(ast.Name("_write_", ast.Load()), [load(base)], []), slice=load(key), ctx=ast.Store()
            )
        value = self.visit(node.value)
        new_value = ast.Call(ast.Name("_inplacevar_", ast.Load()), [ast.Constant(op), read, value], [])
        assign = ast.Assign(targets=[store], value=new_value)
        copy_locations(assign, node)
        if not temps:
            return [*prelude, assign]
        cleanup = ast.Try(
            body=[assign], handlers=[], orelse=[],
            finalbody=[ast.Delete(targets=[ast.Name(t, ast.Del()) for t in temps])],
        )
        copy_locations(cleanup, node)
        return [*prelude, cleanup]

    def visit_Import(self, node: ast.Import) -> ast.AST:
        for alias in node.names:
            if self._check_module(node, alias.name) and "." in alias.name and not alias.asname:
                self.error(node, f"'import {alias.name}' is not allowed; use 'from {alias.name} import name'")
        return self.check_import_names(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.level:
            self.error(node, "relative imports are not allowed")
        elif node.module is not None and self._check_module(node, node.module) and self.allowed_modules is not None:
            exposed = self.allowed_modules[node.module]
            for alias in node.names:
                if alias.name != "*" and alias.name not in exposed:
                    self.error(
                        node,
                        f"{alias.name!r} is not available from sandbox module {node.module!r}; "
                        f"available: {', '.join(sorted(exposed))}",
                    )
        return self.check_import_names(node)

    def _check_module(self, node: ast.AST, name: str) -> bool:
        if self.allowed_modules is None or name in self.allowed_modules:
            return True
        self.error(node, import_refusal(name, self.allowed_modules))
        return False


def compile_env_source(
    source: str,
    *,
    filename: str = "<env>",
    allowed_modules: Mapping[str, Collection[str]] | None = None,
    mode: str = "exec",
) -> types.CodeType:
    """Compile restricted code; raise :class:`PolicyRejection` (policy) or :class:`SyntaxError`.

    ``allowed_modules`` maps importable stand-in names to their exposed attributes; ``None`` skips the static
    import check (the runtime import guard still applies).
    """
    if not isinstance(source, str):
        raise PolicyRejection([f"line 1: source must be a str, got {type(source).__name__}"])
    if len(source) > MAX_SOURCE_CHARS:
        raise PolicyRejection([f"line 1: source is {len(source)} characters; the limit is {MAX_SOURCE_CHARS}"])
    if "\x00" in source:
        raise PolicyRejection(["line 1: source contains a NUL character"])
    tree = parse_source(source, filename, mode)
    errors: list[str] = []
    policy = SpadePolicy(errors, [], {}, allowed_modules=allowed_modules, bound_names=_bound_names(tree))
    policy.visit(tree)
    if errors:
        raise PolicyRejection(errors)
    ast.fix_missing_locations(tree)
    return compile_tree(tree, filename, mode)


def policy_problems(source: str, allowed_modules: Mapping[str, Collection[str]] | None = None) -> list[str]:
    """The policy's refusals for ``source`` (empty when it compiles). Parses untrusted text: prefer the sandbox."""
    try:
        compile_env_source(source, allowed_modules=allowed_modules)
    except PolicyRejection as rejection:
        return list(rejection.problems)
    except SyntaxError as exc:
        return [f"line {exc.lineno}: SyntaxError: {exc.msg}"]
    return []
