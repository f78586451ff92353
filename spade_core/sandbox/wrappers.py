"""Policy wrappers for the allow-listed functions that build classes or change their arguments in place.

A real ``dataclasses.dataclass`` pastes field names into source it ``exec``s; a real ``namedtuple`` can be told
which module its class belongs to; ``heapq.heappush`` and ``bisect.insort`` change the list they are given, which
may be a container shared by every instance in the worker. The allow-list maps those names here instead:

- :func:`sandbox_dataclass` accepts only classes made by a ``class`` statement of the environment code (marked
  by the sandbox's metaclass, plain ``type`` metaclass, identifier field names) in a module the sandbox created;
- :func:`sandbox_namedtuple` marks its classes as sandbox-defined and refuses ``module=``;
- the heapq / bisect mutators refuse a shared container (:func:`.guards.is_shared`);
- the ``re`` functions pass only exact ``str``/``bytes`` patterns and plain ``int`` flags on: ``re`` keeps one
  compiled-pattern cache per process keyed by ``(type, pattern, flags)``, and a ``str`` subclass with its own
  ``__hash__``/``__eq__`` would hit another instance's entry (state shared between instances).
"""

from __future__ import annotations

import bisect
import collections
import copy
import dataclasses
import heapq
import keyword
import operator
import re
import sys
from collections.abc import Callable
from typing import Any

from spade_core.contract.rng import EpisodeRandom
from spade_core.sandbox.guards import SANDBOX_MARK, is_shared, sandbox_metaclass
from spade_core.sandbox.violations import violation

DATACLASS_OPTIONS = frozenset({"init", "repr", "eq", "order", "unsafe_hash", "frozen", "match_args", "kw_only"})


def require_statement_class(cls: Any, what: str) -> type:
    """``cls`` if it was made by a ``class`` statement of sandboxed code, else a policy refusal."""
    if not (isinstance(cls, type) and type(cls) is type and SANDBOX_MARK in cls.__dict__):
        raise violation(f"{what}() only accepts classes defined by a class statement in the environment code")
    module = sys.modules.get(cls.__module__)
    if module is None or module.__dict__.get("__metaclass__") is not sandbox_metaclass:
        raise violation(f"{what}(): class {cls.__name__} does not belong to a module the sandbox is running")
    for name in cls.__dict__:
        if type(name) is not str or not name.isidentifier():
            raise violation(f"{what}(): class {cls.__name__} has an attribute whose name is not an identifier")
    annotations = cls.__dict__.get("__annotations__", {})
    if type(annotations) is not dict:
        raise violation(f"{what}(): the annotations of class {cls.__name__} are not a plain dict")
    for name in annotations:
        if type(name) is not str or not name.isidentifier() or keyword.iskeyword(name) or name[:2] == "__":
            raise violation(f"{what}(): field name {name!r} of class {cls.__name__} is not a plain identifier")
    return cls


def sandbox_dataclass(cls: Any = None, /, **options: Any) -> Any:
    """``@dataclass`` / ``@dataclass(order=True, ...)`` for classes of the environment code only."""
    unknown = sorted(set(options) - DATACLASS_OPTIONS)
    if unknown:
        raise violation(f"dataclass() options {', '.join(unknown)} are not available in the sandbox; "
                        f"allowed: {', '.join(sorted(DATACLASS_OPTIONS))}")

    def wrap(klass: Any) -> type:
        return dataclasses.dataclass(require_statement_class(klass, "dataclass"), **options)

    return wrap if cls is None else wrap(cls)


def sandbox_namedtuple(typename: Any, field_names: Any, **kwargs: Any) -> type:
    """``collections.namedtuple`` whose classes count as sandbox-defined (so ``p._replace()`` works)."""
    if "module" in kwargs:
        raise violation("namedtuple(module=...) is not allowed")
    if type(typename) is not str or not typename.isidentifier():
        raise violation("namedtuple() needs an identifier as the type name")
    cls = collections.namedtuple(typename, field_names, **kwargs)  # a runtime factory
    type.__setattr__(cls, SANDBOX_MARK, True)
    return cls


def _unshared(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
    def checked(heap: Any, *args: Any, **kwargs: Any) -> Any:
        if is_shared(heap):
            raise violation(f"{label}() cannot change a list shared by the allow-listed modules; copy it first")
        return fn(heap, *args, **kwargs)

    checked.__name__ = checked.__qualname__ = label.rsplit(".", 1)[-1]
    checked.__doc__ = fn.__doc__
    return checked


def sandbox_deepcopy(value: Any) -> Any:
    """``copy.deepcopy`` without a caller's memo: the memo would hand sandboxed code every object the copy
    made, internal ones included (the rng's ``random.Random`` state, reseedable)."""
    return copy.deepcopy(value)


class SandboxRandom(EpisodeRandom):
    """The rng sandboxed code gets: :class:`EpisodeRandom` whose ``shuffle`` refuses a container shared by the
    allow-listed modules (a trusted method changing its argument would otherwise bypass the shared-container
    guard and leak state between instances)."""

    __slots__ = ()

    def shuffle(self, items: Any) -> None:
        if is_shared(items):
            raise violation("rng.shuffle() cannot change a container shared by the allow-listed modules; copy it "
                            "first (list(x))")
        super().shuffle(items)


heappush = _unshared(heapq.heappush, "heapq.heappush")
heappop = _unshared(heapq.heappop, "heapq.heappop")
heapify = _unshared(heapq.heapify, "heapq.heapify")
heappushpop = _unshared(heapq.heappushpop, "heapq.heappushpop")
heapreplace = _unshared(heapq.heapreplace, "heapq.heapreplace")
insort = _unshared(bisect.insort, "bisect.insort")
insort_left = _unshared(bisect.insort_left, "bisect.insort_left")
insort_right = _unshared(bisect.insort_right, "bisect.insort_right")


def _plain_pattern(pattern: Any) -> Any:
    if type(pattern) in (str, bytes, re.Pattern):
        return pattern
    if isinstance(pattern, str):
        return str.__str__(pattern)
    if isinstance(pattern, bytes):
        return bytes(pattern)
    raise TypeError(f"first argument must be string or compiled pattern, not {type(pattern).__name__}")


def _plain_re(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    def plain(pattern: Any, *args: Any, **kwargs: Any) -> Any:
        if "flags" in kwargs:
            kwargs["flags"] = operator.index(kwargs["flags"])
        return fn(_plain_pattern(pattern), *args, **kwargs)

    plain.__name__ = plain.__qualname__ = name
    plain.__doc__ = fn.__doc__
    return plain


def re_compile(pattern: Any, flags: Any = 0) -> re.Pattern[Any]:
    return re.compile(_plain_pattern(pattern), operator.index(flags))


re_compile.__doc__ = re.compile.__doc__
re_match = _plain_re(re.match, "match")
re_search = _plain_re(re.search, "search")
re_fullmatch = _plain_re(re.fullmatch, "fullmatch")
re_findall = _plain_re(re.findall, "findall")
re_finditer = _plain_re(re.finditer, "finditer")
re_sub = _plain_re(re.sub, "sub")
re_subn = _plain_re(re.subn, "subn")
re_split = _plain_re(re.split, "split")
