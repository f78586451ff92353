"""Runtime half of the policy: the guard functions and curated builtins restricted code runs against.

``compile_env_source`` (:mod:`.policy`) rewrites every attribute read into ``_getattr_(obj, name)``, every write
target into ``_write_(obj)``, every subscript into ``_getitem_``, and so on; this module supplies those functions.

The single-underscore rule: a ``_name`` attribute is readable only where it lives on an instance of, or in the
dict of, a class the sandboxed module itself defined (the ``self._get_obs()`` pattern); dunders never; ``_``
attributes of anything else (the episode rng, allow-listed classes) never. A refused operation raises
:class:`~spade_core.sandbox.violations.PolicyViolation` and is recorded (:mod:`.violations`).
"""

from __future__ import annotations

import builtins
import collections
import operator
import re
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.PrintCollector import PrintCollector
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from spade_core.sandbox.allowlist import IMPORT_HINTS, StandInModule, exposed_names
from spade_core.sandbox.violations import VIOLATIONS, violation

SANDBOX_MARK = "__spade_sandbox__"
"""Set in the class dict of every class the sandboxed module defines (by ``__metaclass__``)."""

MAX_PRINT_CHARS = 1_000_000
"""Printing more than this in one call is refused (huge-output attacks); the text itself is discarded."""

_print_budget = [MAX_PRINT_CHARS]

_FORBIDDEN_RESULT_TYPES = frozenset({types.ModuleType, types.FrameType, types.CodeType, types.TracebackType})
_FORMAT_NAMES = frozenset({"format", "format_map", "vformat"})
_SLOW_NAMES = frozenset(INSPECT_ATTRIBUTES) | _FORMAT_NAMES | {"mro"}
_WRITABLE = (list, dict, set, bytearray, collections.deque)

ESCAPE_BUILTINS = (
    "exec", "eval", "compile", "open", "__import__", "getattr", "setattr", "delattr", "vars", "globals", "locals",
    "dir", "breakpoint", "input", "__build_class__", "memoryview",
)
"""Real builtins that would undo the policy (code execution, files, unguarded reflection); never a value."""

_FORBIDDEN_IDS: frozenset[int] = frozenset(
    [id(getattr(builtins, name)) for name in ESCAPE_BUILTINS] + [id(builtins.__dict__), id(builtins), id(type),
                                                                  id(object.__getattribute__), id(object.__setattr__)]
)

MUTATORS = frozenset(
    "append appendleft extend extendleft insert remove pop popleft popitem clear sort reverse rotate update "
    "setdefault add discard intersection_update difference_update symmetric_difference_update subtract "
    "move_to_end".split()
)
"""Methods that change a container in place: refused on containers shared by the sandbox's modules."""

# Per-type classification of objects whose attributes are read (cached; see _classify).
_K_CLASS = 1  # instances are classes (type or a metaclass): attributes found only on the metaclass are refused
_K_OPAQUE = 2  # typing special forms: no attribute reads (they forward to shared real classes)
_K_FORBIDDEN = 4  # modules, frames, code, tracebacks: never a value
_KIND: dict[type, int] = {}
_REACHABLE_CLASSES: set[type] = set()
"""Classes sandboxed code can name (curated builtins, classes the allow-list exposes): ``type(x)`` returns them."""
_SHARED: set[int] = set()
"""ids of mutable containers reachable from the stand-ins (shared by every instance in a worker): read-only."""
_SHARED_KEEP: list[Any] = []
_INSTALLED: set[int] = set()


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


def _classify(t: type) -> int:
    kind = 0
    if issubclass(t, type):
        kind |= _K_CLASS
    if t in _FORBIDDEN_RESULT_TYPES:
        kind |= _K_FORBIDDEN
    if getattr(t, "__module__", None) == "typing" and t is not types.FunctionType:
        kind |= _K_OPAQUE
    if len(_KIND) > 4096:  # sandbox classes come and go with instances: keep the cache bounded
        _KIND.clear()
    _KIND[t] = kind
    return kind


def _check_value(value: Any, what: str) -> Any:
    """Refuse escape primitives as values: modules, frames, code, metaclasses, the real builtins."""
    t = type(value)
    kind = _KIND.get(t)
    if kind is None:
        kind = _classify(t)
    if kind & _K_FORBIDDEN:
        raise violation(f"access to {t.__name__} objects is not allowed ({what})")
    if kind & _K_CLASS and issubclass(value, type):
        raise violation(f"metaclasses (here {value.__name__}) are not available in the sandbox ({what})")
    if id(value) in _FORBIDDEN_IDS:
        raise violation(f"{what} would hand out a builtin the sandbox does not offer")
    return value


def _from_metaclass(cls: type, name: str) -> bool:
    """Whether ``cls.name`` resolves on the metaclass rather than on the class itself (``register``, ``mro``)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return False
    return any(name in meta.__dict__ for meta in type(cls).__mro__)


def guarded_getattr(obj: Any, name: str, default: Any = _MISSING) -> Any:
    """``_getattr_`` and the ``getattr`` builtin: dunders never, ``_x`` only on sandbox-defined classes, nothing
    that comes from a metaclass of a foreign class (``Fraction.register``), no attribute of typing's special forms,
    no mutating method of a shared container, and never an escape primitive as the value."""
    if type(name) is not str:
        raise TypeError(f"attribute name must be a string, not {type(name).__name__}")
    if name[:1] == "_" or name in _SLOW_NAMES:
        _check_name(obj, name)
    t = type(obj)
    kind = _KIND.get(t)
    if kind is None:
        kind = _classify(t)
    if kind:
        if kind & _K_OPAQUE:
            raise violation(f"attributes of typing objects are not available in the sandbox (attribute {name!r})")
        if kind & _K_CLASS:
            if name in MUTATORS and obj in _CHECKED_CLASSES:
                return _CheckedMutator(getattr(obj, name), f"{obj.__name__}.{name}")
            if (t is not type or SANDBOX_MARK not in obj.__dict__) and _from_metaclass(obj, name):
                raise violation(
                    f"attribute {name!r} of class {obj.__name__} comes from its metaclass {t.__name__}; "
                    "metaclass methods (class registration, mro) are not available on classes the environment "
                    "did not define"
                )
    if name in MUTATORS and id(obj) in _SHARED:
        raise violation(_shared_message(obj, f".{name}()"))
    if default is _MISSING:
        value = getattr(obj, name)
    else:
        value = getattr(obj, name, default)
    t = type(value)
    if t in _PLAIN_VALUE_TYPES:
        return value
    return _check_value(value, f"attribute {name!r}")


def _shared_message(obj: Any, what: str) -> str:
    return (f"cannot modify this {type(obj).__name__} ({what}): it belongs to an allow-listed module and is shared "
            "by every environment instance; copy it first (list(x), dict(x))")


class _CheckedMutator:
    """An unbound container method (``list.append``) that refuses to change a shared container."""

    __slots__ = ("_fn", "_label")

    def __init__(self, fn: Callable[..., Any], label: str) -> None:
        self._fn = fn
        self._label = label

    def __call__(self, target: Any, *args: Any, **kwargs: Any) -> Any:
        if id(target) in _SHARED:
            raise violation(_shared_message(target, self._label))
        return self._fn(target, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<method {self._label}>"


_CHECKED_CLASSES = frozenset({list, dict, set, bytearray, collections.deque, collections.Counter,
                              collections.OrderedDict, collections.defaultdict})
_IMMUTABLE = frozenset({int, float, str, bool, tuple, frozenset, bytes, complex})
_PLAIN_VALUE_TYPES = frozenset({str, int, float, bool, type(None), tuple, list, dict, set, frozenset, types.MethodType})


def _check_name(obj: Any, name: str) -> None:
    if name in INSPECT_ATTRIBUTES:
        raise violation(f"attribute {name!r} is not allowed (frame/code introspection)")
    if name in _FORMAT_NAMES and _is_str_like(obj):
        raise violation(f"str.{name}() is not allowed (it can read attributes); use f-strings or %-formatting")
    if name == "mro" and isinstance(obj, type):  # even of its own classes: the list holds foreign bases
        raise violation("mro() is not allowed (it hands out base classes the environment did not define); use "
                        "isinstance/issubclass")
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
    """``_write_``: environment objects (its own classes and instances, lists, dicts, sets) are writable; containers
    shared by the allow-listed modules are not."""
    if isinstance(obj, _WRITABLE):
        if id(obj) in _SHARED:
            raise violation(_shared_message(obj, "item or attribute assignment"))
        return obj
    if is_sandbox_class(obj) or is_sandbox_class(type(obj)):
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
    if type(value) in _PLAIN_VALUE_TYPES:
        return value
    return _check_value(value, "subscript")


_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "<<=": operator.ilshift,
    ">>=": operator.irshift, "|=": operator.ior, "^=": operator.ixor, "&=": operator.iand, "@=": operator.imatmul,
}


def inplacevar(op: str, target: Any, value: Any) -> Any:
    """``_inplacevar_``: ``x += v`` with in-place semantics (a list is extended, not replaced)."""
    if type(target) not in _IMMUTABLE and id(target) in _SHARED:
        raise violation(_shared_message(target, op))
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
    """``__metaclass__`` of every class statement in restricted code: marks the class as sandbox-defined.

    Bases must be plain classes (metaclass ``type``): a class built by ``ABCMeta``, ``EnumType`` or a typing
    metaclass would run that metaclass's code on the environment's namespace and share its registries.
    """
    if kwargs:
        raise violation(f"class {name}: class keyword arguments are not allowed")
    for base in bases:
        if type(base) is not type:
            shown = getattr(base, "__name__", type(base).__name__)
            raise violation(
                f"class {name}: base {shown!r} is built by the metaclass {type(base).__name__}; classes in "
                "environment code may only derive from plain classes (object, exceptions, their own classes)"
            )
    namespace[SANDBOX_MARK] = True
    return type(name, bases, namespace)


class TypeName:
    """What ``type(x)`` returns for a class sandboxed code cannot name (``type(None)``, a function, a metaclass):
    comparable and printable, no attributes; calling it is a policy refusal (it builds nothing)."""

    __slots__ = ("_cls",)

    def __init__(self, cls: type) -> None:
        self._cls = cls

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeName) and other._cls is self._cls

    def __hash__(self) -> int:
        return hash(("spade-type", id(self._cls)))

    def __repr__(self) -> str:
        return f"<class {self._cls.__name__!r}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise violation(f"type() of this value describes the class {self._cls.__name__!r}, which environment code "
                        "cannot use to build objects or classes")


_TYPE_NAMES: dict[type, TypeName] = {}
_HARMLESS_VALUE_CLASSES = (type(None), type(Ellipsis), type(NotImplemented), type({}.keys()), type({}.values()),
                           type({}.items()), re.Pattern, re.Match)
"""Classes of ordinary values that ``type(x)`` may return although no builtin names them (``isinstance(v,
type(None))``): none builds anything but its own singleton, and the regex and view classes cannot be called."""


def safe_type(obj: Any, *rest: Any) -> Any:
    """``type(x)`` (one argument only): the class itself when sandboxed code could name it anyway (builtin value
    types, allow-listed classes, its own classes), else a :class:`TypeName` — never a metaclass or a class
    factory such as ``FunctionType`` or an enum class."""
    if rest:
        raise violation("type() with three arguments (creating classes dynamically) is not allowed")
    result = type(obj)
    if result in _REACHABLE_CLASSES or (result is not type and SANDBOX_MARK in result.__dict__
                                        and type(result) is type):
        return result
    token = _TYPE_NAMES.get(result)
    if token is None:
        if len(_TYPE_NAMES) > 4096:
            _TYPE_NAMES.clear()
        token = _TYPE_NAMES[result] = TypeName(result)
    return token


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
    """The curated ``__builtins__`` of restricted code (no eval/exec/compile/open/globals/vars/dir...).

    Also records what the stand-ins expose (:func:`install_standins`): the classes ``type()`` may return and the
    shared containers sandboxed code may read but not change.
    """
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
    install_standins(standins, table)
    return table


def install_standins(standins: Mapping[str, StandInModule], table: Mapping[str, Any]) -> None:
    """Record the classes sandboxed code can name and the mutable containers every instance shares.

    Walks what restricted code can reach from the stand-ins without a policy refusal (public attributes of the
    exposed values, their classes' public attributes, items of containers) and marks every list, dict, set,
    deque and bytearray found as shared: such a container (``Calculator.TOOL_DEFS[0].parameters``) is one object
    for every instance in the worker, so changing it would leak state between instances and break replay.
    """
    if id(standins) in _INSTALLED:
        return
    _INSTALLED.add(id(standins))
    _SHARED_KEEP.append(standins)
    roots: list[Any] = [v for v in table.values() if isinstance(v, type)]
    _REACHABLE_CLASSES.update(roots)
    for module in standins.values():
        for name in exposed_names(module):
            value = object.__getattribute__(module, name)
            roots.append(value)
            if isinstance(value, type) and not issubclass(value, type):
                _REACHABLE_CLASSES.add(value)
    _REACHABLE_CLASSES.update(_HARMLESS_VALUE_CLASSES)
    _REACHABLE_CLASSES.difference_update({type, types.FunctionType, types.CodeType})
    seen: set[int] = set()
    stack = list(roots)
    while stack and len(seen) < 200_000:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, complex, types.ModuleType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, _WRITABLE):
            _SHARED.add(id(obj))
            _SHARED_KEEP.append(obj)  # kept alive so the id is never reused
        if isinstance(obj, dict) or isinstance(obj, types.MappingProxyType):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset, collections.deque)):
            stack.extend(obj)
        if isinstance(obj, type):
            for klass in obj.__mro__:
                stack.extend(v for k, v in klass.__dict__.items() if k[:1] != "_")
        else:
            attrs = getattr(obj, "__dict__", None)
            if isinstance(attrs, dict):
                stack.extend(v for k, v in attrs.items() if type(k) is str and k[:1] != "_")
            for klass in type(obj).__mro__:
                stack.extend(v for k, v in klass.__dict__.items()
                             if k[:1] != "_" and not callable(v) and not isinstance(v, (property, types.GetSetDescriptorType, types.MemberDescriptorType)))


def is_shared(obj: Any) -> bool:
    """Whether ``obj`` is a container shared by the allow-listed modules (read-only to sandboxed code)."""
    return id(obj) in _SHARED


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
