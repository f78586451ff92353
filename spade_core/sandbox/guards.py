"""Runtime half of the policy: the guard functions and curated builtins restricted code runs against.

``compile_env_source`` (:mod:`.policy`) rewrites every attribute read into ``_getattr_(obj, name)``, every write
target into ``_write_(obj)``, every subscript into ``_getitem_``, and so on; this module supplies those functions.

The single-underscore rule: a ``_name`` attribute is readable only where it lives on an instance of, or in the
dict of, a class the sandboxed module itself defined (the ``self._get_obs()`` pattern); dunders never; ``_``
attributes of anything else (the episode rng, allow-listed classes) never. A refused operation raises
:class:`PolicyViolation`, a ``BaseException`` so ``except Exception`` does not swallow it, and it is also recorded
in :data:`VIOLATIONS`, so even code that catches it with a bare ``except:`` has the call reported as a policy error.
"""

from __future__ import annotations

import builtins
import collections
import operator
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.PrintCollector import PrintCollector
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from spade_core.sandbox.allowlist import IMPORT_HINTS, StandInModule, exposed_names

SANDBOX_MARK = "__spade_sandbox__"
"""Set in the class dict of every class the sandboxed module defines (by ``__metaclass__``)."""

MAX_PRINT_CHARS = 1_000_000
"""Printing more than this in one call is refused (huge-output attacks); the text itself is discarded."""

VIOLATIONS: list[str] = []
"""Policy refusals seen during the current call (cleared by the worker before each call)."""

_print_budget = [MAX_PRINT_CHARS]

_FORBIDDEN_RESULT_TYPES = frozenset({types.ModuleType, types.FrameType, types.CodeType, types.TracebackType})
_FORMAT_NAMES = frozenset({"format", "format_map", "vformat"})
_SLOW_NAMES = frozenset(INSPECT_ATTRIBUTES) | _FORMAT_NAMES | {"mro"}
_WRITABLE = (list, dict, set, bytearray, collections.deque)


class PolicyViolation(BaseException):
    """A runtime guard refused an operation (forbidden attribute, import, write, or output size)."""


def violation(message: str) -> PolicyViolation:
    """Record a refusal for the current call and return the exception to raise."""
    if len(VIOLATIONS) < 16:
        VIOLATIONS.append(message)
    return PolicyViolation(message)


def reset_call_state() -> None:
    """Clear per-call state (violations, print budget); the worker calls this before each call."""
    VIOLATIONS.clear()
    _print_budget[0] = MAX_PRINT_CHARS


# -- class ownership -----------------------------------------------------------------------------------------
def is_sandbox_class(cls: Any) -> bool:
    return isinstance(cls, type) and getattr(cls, SANDBOX_MARK, False) is True


def _owner_is_sandbox(mro: tuple[type, ...], name: str) -> bool | None:
    """Whether the first class in ``mro`` defining ``name`` is sandbox-defined (None: nobody defines it)."""
    for klass in mro:
        if name in klass.__dict__:
            return SANDBOX_MARK in klass.__dict__
    return None


def _private_allowed(obj: Any, name: str) -> bool:
    if isinstance(obj, super):
        self_class = obj.__self_class__
        if self_class is None:
            return False
        mro = self_class.__mro__
        start = mro.index(obj.__thisclass__) + 1 if obj.__thisclass__ in mro else len(mro)
        return bool(_owner_is_sandbox(mro[start:], name))
    if isinstance(obj, type):
        owner = _owner_is_sandbox(obj.__mro__, name)
        return is_sandbox_class(obj) if owner is None else owner
    cls = type(obj)
    owner = _owner_is_sandbox(cls.__mro__, name)
    if owner is not None:
        return owner
    return is_sandbox_class(cls)  # instance attribute (or missing: a normal AttributeError follows)


def _is_str_like(obj: Any) -> bool:
    return isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str))


_MISSING = object()


def guarded_getattr(obj: Any, name: str, default: Any = _MISSING) -> Any:
    """``_getattr_`` and the ``getattr`` builtin: dunders never, ``_x`` only on sandbox-defined classes."""
    if type(name) is not str:
        raise TypeError(f"attribute name must be a string, not {type(name).__name__}")
    if name[:1] == "_" or name in _SLOW_NAMES:
        _check_name(obj, name)
    if default is _MISSING:
        value = getattr(obj, name)
    else:
        value = getattr(obj, name, default)
    if type(value) in _FORBIDDEN_RESULT_TYPES:
        raise violation(f"access to {type(value).__name__} objects is not allowed (attribute {name!r})")
    return value


def _check_name(obj: Any, name: str) -> None:
    if name in INSPECT_ATTRIBUTES:
        raise violation(f"attribute {name!r} is not allowed (frame/code introspection)")
    if name in _FORMAT_NAMES and _is_str_like(obj):
        raise violation(f"str.{name}() is not allowed (it can read attributes); use f-strings or %-formatting")
    if name == "mro" and isinstance(obj, type) and not is_sandbox_class(obj):
        raise violation("mro() of classes the environment did not define is not allowed")
    if name[:1] != "_":
        return
    if name[:2] == "__":
        if name == "__init__" and isinstance(obj, super):
            return
        raise violation(f"attribute {name!r} is not allowed (dunder attributes are blocked)")
    if name[-1:] == "_" or not _private_allowed(obj, name):
        raise violation(
            f"attribute {name!r} of a {type(obj).__name__} is not allowed: '_' attributes are only readable on "
            "classes the environment code defines"
        )


def guarded_hasattr(obj: Any, name: str) -> bool:
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def guarded_write(obj: Any) -> Any:
    """``_write_``: environment objects (its own classes and instances, lists, dicts, sets) are writable."""
    if isinstance(obj, _WRITABLE) or is_sandbox_class(obj) or is_sandbox_class(type(obj)):
        return obj
    raise violation(
        f"cannot assign to attributes or items of a {type(obj).__name__}; only objects the environment code "
        "created (instances of its classes, lists, dicts, sets) are writable"
    )


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if name[:1] == "_" and (name[:2] == "__" or name[-1:] == "_"):
        raise violation(f"setting attribute {name!r} is not allowed")
    setattr(guarded_write(obj), name, value)


def guarded_delattr(obj: Any, name: str) -> None:
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if name[:1] == "_" and (name[:2] == "__" or name[-1:] == "_"):
        raise violation(f"deleting attribute {name!r} is not allowed")
    delattr(guarded_write(obj), name)


def guarded_getitem(obj: Any, key: Any) -> Any:
    value = obj[key]
    if type(value) in _FORBIDDEN_RESULT_TYPES:
        raise violation(f"access to {type(value).__name__} objects is not allowed")
    return value


_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "<<=": operator.ilshift,
    ">>=": operator.irshift, "|=": operator.ior, "^=": operator.ixor, "&=": operator.iand, "@=": operator.imatmul,
}


def inplacevar(op: str, target: Any, value: Any) -> Any:
    """``_inplacevar_``: ``x += v`` with in-place semantics (a list is extended, not replaced)."""
    return _INPLACE[op](target, value)


def apply(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


class CappedPrint(PrintCollector):
    """``print`` inside the sandbox: text is kept per call up to :data:`MAX_PRINT_CHARS`, more is refused."""

    def write(self, text: str) -> None:
        _print_budget[0] -= len(text)
        if _print_budget[0] < 0:
            raise violation(f"printed more than {MAX_PRINT_CHARS} characters in one call")
        if len(self.txt) < 4096:
            self.txt.append(text)


def sandbox_metaclass(name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any) -> type:
    """``__metaclass__`` of every class statement in restricted code: marks the class as sandbox-defined."""
    if kwargs:
        raise violation(f"class {name}: class keyword arguments are not allowed")
    namespace[SANDBOX_MARK] = True
    return type(name, bases, namespace)


def safe_type(obj: Any, *rest: Any) -> Any:
    """``type(x)`` (one argument only). ``type(cls)`` returns this function, so the real metaclass never leaks."""
    if rest:
        raise violation("type() with three arguments (creating classes dynamically) is not allowed")
    result = type(obj)
    return safe_type if result is type else result


def sandbox_namedtuple(*args: Any, **kwargs: Any) -> type:
    """``collections.namedtuple`` whose classes count as sandbox-defined (so ``p._replace()`` works)."""
    if "module" in kwargs:
        raise violation("namedtuple(module=...) is not allowed")
    cls = collections.namedtuple(*args, **kwargs)  # noqa: PYI024 - a runtime factory, not a type declaration
    type.__setattr__(cls, SANDBOX_MARK, True)
    return cls


def make_importer(standins: Mapping[str, StandInModule]) -> Callable[..., Any]:
    """The guarded ``__import__``: returns stand-ins only, never a real module."""

    def guarded_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level:
            raise violation("relative imports are not allowed")
        module = standins.get(name)
        if module is None:
            raise violation(import_refusal(name, standins))
        for attr in fromlist or ():
            if attr == "*":
                raise violation("'*' imports are not allowed")
            guarded_getattr(module, attr)
        return module

    return guarded_import


def import_refusal(name: str, allowed: Mapping[str, Any]) -> str:
    """The message for a refused import, with the allowed modules and a hint where one helps."""
    hint = IMPORT_HINTS.get(name.split(".")[0])
    listed = ", ".join(sorted(m for m in allowed if m != "__future__"))
    return f"import of {name!r} is not allowed{'; ' + hint if hint else ''}; allowed modules: {listed}"


def describe_standin(module: StandInModule) -> str:
    return ", ".join(exposed_names(module))


_EXCEPTIONS = (
    "ArithmeticError", "AssertionError", "AttributeError", "EOFError", "Exception", "IndexError", "KeyError",
    "LookupError", "NameError", "NotImplementedError", "OverflowError", "RecursionError", "RuntimeError",
    "StopIteration", "TypeError", "UnicodeError", "ValueError", "ZeroDivisionError",
)
_PLAIN_BUILTINS = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "classmethod", "complex", "dict",
    "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id", "int", "isinstance",
    "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord", "pow", "property",
    "range", "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple",
    "zip",
)


def make_builtins(standins: Mapping[str, StandInModule]) -> dict[str, Any]:
    """The curated ``__builtins__`` of restricted code (no eval/exec/compile/open/globals/vars/dir...)."""
    table: dict[str, Any] = {name: getattr(builtins, name) for name in _PLAIN_BUILTINS + _EXCEPTIONS}
    table.update(
        {
            "True": True, "False": False, "None": None, "NotImplemented": NotImplemented, "Ellipsis": Ellipsis,
            "type": safe_type, "getattr": guarded_getattr, "hasattr": guarded_hasattr,
            "setattr": guarded_setattr, "delattr": guarded_delattr,
            "__import__": make_importer(standins),
            "__build_class__": builtins.__build_class__,
        }
    )
    return table


def make_module(builtins_table: dict[str, Any], module_name: str) -> types.ModuleType:
    """A fresh module for one run of restricted code, registered in ``sys.modules`` under ``module_name``.

    Registration lets trusted helpers that look a class's module up (``dataclasses`` with string annotations)
    work; call :func:`drop_module` when the namespace is discarded.
    """
    module = types.ModuleType(module_name)
    module.__dict__.update(make_globals(builtins_table, module_name))
    sys.modules[module_name] = module
    return module


def drop_module(module_name: str) -> None:
    sys.modules.pop(module_name, None)


def make_globals(builtins_table: dict[str, Any], module_name: str) -> dict[str, Any]:
    """A fresh module namespace for one run of restricted code."""
    return {
        "__builtins__": builtins_table,
        "__name__": module_name,
        "__metaclass__": sandbox_metaclass,
        "_getattr_": guarded_getattr,
        "_getitem_": guarded_getitem,
        "_getiter_": iter,
        "_write_": guarded_write,
        "_inplacevar_": inplacevar,
        "_apply_": apply,
        "_print_": CappedPrint,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    }
