"""Running trusted, in-process code on values a model chose: data limits, numeric guards, context, a deadline.

Tool implementations, the BFCL API classes and calculators are installed code, so they run in the host process;
their *arguments* come from model text. Three things keep one call from costing the host more than a call should:

- :func:`plain_data_problem` bounds the data itself before anything acts on it: only JSON-like values (None,
  bool, int, float, str, list/tuple, dict with str keys), finite floats, integers of at most
  :data:`MAX_INT_BITS` bits, at most :data:`MAX_DEPTH` levels, :data:`MAX_ITEMS` values, :data:`MAX_STRING_CHARS`
  characters per string and no lone surrogates. It walks without recursion.
- :func:`guarded_arguments` hands integers to the callee as :class:`BoundedInt`, whose ``**``, ``<<`` and ``*``
  refuse a result over :data:`MAX_RESULT_BITS` bits with an ``OverflowError`` (``power(10, 10**7)`` would hold the
  interpreter for seconds inside one C call, which no deadline can interrupt).
- :func:`guarded_call` runs the call with its own decimal context (precision at most :data:`MAX_DECIMAL_PREC`,
  restored afterwards), mpmath's precision bounded the same way and restored afterwards, and a wall-clock deadline
  of ``timeout_s``
  (:class:`CallTimeout` is raised into the calling thread between two bytecodes, and again until the call returns,
  so it stops Python-level loops even where the callee catches exceptions; single C-level operations are kept
  small by the two guards above).
"""

from __future__ import annotations

import ctypes
import decimal
import heapq
import itertools
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

MAX_INT_BITS = 64
"""Integers a model passes in: at most 64 bits (ids, counts, amounts in cents all fit)."""
MAX_RESULT_BITS = 4096
"""What one ``**``, ``<<`` or ``*`` on a model-supplied integer may produce (about 1,233 decimal digits)."""
MAX_DEPTH = 32
MAX_ITEMS = 10_000
MAX_STRING_CHARS = 1_000_000
MAX_DECIMAL_PREC = 1000
"""The largest decimal precision a guarded call may set (libmpdec's work grows fast with it)."""
DEFAULT_TIMEOUT_S = 2.0
"""The per-call budget of a guarded call."""
REFIRE_S = 0.05


class CallTimeout(BaseException):
    """A guarded call ran past its deadline.

    A ``BaseException`` (like ``KeyboardInterrupt``), so the callee's own ``except Exception`` does not swallow it;
    it is raised again every :data:`REFIRE_S` seconds until the call returns.
    """


class ArgumentLimitError(ValueError):
    """Model-supplied data is outside what in-process code accepts (message says which part and the limit)."""


def _where(path: str) -> str:
    return f"argument '{path}'" if path else "the arguments"


def plain_data_problem(value: Any, *, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS,
                       max_string_chars: int = MAX_STRING_CHARS, max_int_bits: int = MAX_INT_BITS) -> str | None:
    """The first reason ``value`` is not small plain data (see the module docstring), or None."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    seen = 0
    while stack:
        item, path, depth = stack.pop()
        seen += 1
        if seen > max_items:
            return f"the arguments hold more than {max_items} values"
        if depth > max_depth:
            return f"the arguments are nested more than {max_depth} levels deep"
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            if item.bit_length() > max_int_bits:
                return (f"{_where(path)} is an integer of {item.bit_length()} bits; "
                        f"integers here have at most {max_int_bits} bits (|n| < 2**{max_int_bits})")
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{_where(path)} must be a finite number, got {item!r}"
        elif isinstance(item, str):
            problem = _string_problem(item, path, max_string_chars)
            if problem:
                return problem
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, f"{path}[{i}]", depth + 1) for i, sub in enumerate(item))
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                if not isinstance(key, str):
                    return f"{_where(path)} has a non-string key of type {type(key).__name__}"
                problem = _string_problem(key, f"{path}.<key>" if path else "<key>", max_string_chars)
                if problem:
                    return problem
                stack.append((sub, f"{path}.{key[:40]}" if path else key[:40], depth + 1))
        else:
            return f"{_where(path)} has type {type(item).__name__}; only JSON values are accepted"
    return None


def _string_problem(text: str, path: str, limit: int) -> str | None:
    if len(text) > limit:
        return f"{_where(path)} is {len(text)} characters; the limit is {limit}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"{_where(path)} contains a lone surrogate at index {err.start}, which is not valid Unicode text"
    return None


def check_plain_data(value: Any, **limits: int) -> None:
    """Raise :class:`ArgumentLimitError` with :func:`plain_data_problem`'s message if there is one."""
    problem = plain_data_problem(value, **limits)
    if problem:
        raise ArgumentLimitError(problem)


# -- numeric guards --------------------------------------------------------------------------------------------------
def _too_large(what: str) -> OverflowError:
    return OverflowError(f"{what} would be larger than {MAX_RESULT_BITS} bits")


class BoundedInt(int):
    """An ``int`` whose ``**``, ``<<`` and ``*`` refuse results over :data:`MAX_RESULT_BITS` bits.

    Every other operation behaves (and returns) exactly as on ``int``; equality, hashing, ``json.dumps`` and
    ``repr`` are ``int``'s, so results and states compare equal to plain integers.
    """

    __slots__ = ()

    def __pow__(self, other: Any, modulo: Any = None) -> Any:
        if modulo is None and isinstance(other, int) and not isinstance(other, bool) and other > 0:
            if max(abs(int(self)).bit_length() - 1, 0) * other > MAX_RESULT_BITS and abs(int(self)) > 1:
                raise _too_large("the power")
        return int.__pow__(int(self), other, modulo) if modulo is not None else int.__pow__(int(self), other)

    def __rpow__(self, other: Any, modulo: Any = None) -> Any:
        if modulo is None and isinstance(other, int) and not isinstance(other, bool) and self > 0:
            if max(abs(other).bit_length() - 1, 0) * int(self) > MAX_RESULT_BITS and abs(other) > 1:
                raise _too_large("the power")
        if isinstance(other, float) and self > 0 and abs(other) > 1 and int(self) * math.log2(abs(other)) > 1024:
            raise _too_large("the power")
        return int.__rpow__(int(self), other, modulo) if modulo is not None else int.__rpow__(int(self), other)

    def __lshift__(self, other: Any) -> Any:
        if isinstance(other, int) and abs(int(self)).bit_length() + other > MAX_RESULT_BITS:
            raise _too_large("the shift")
        return int.__lshift__(int(self), other)

    def __rlshift__(self, other: Any) -> Any:
        if isinstance(other, int) and abs(other).bit_length() + int(self) > MAX_RESULT_BITS:
            raise _too_large("the shift")
        return int.__rlshift__(int(self), other)

    def __mul__(self, other: Any) -> Any:
        if isinstance(other, int) and abs(int(self)).bit_length() + abs(other).bit_length() > MAX_RESULT_BITS:
            raise _too_large("the product")
        if isinstance(other, (str, bytes, list, tuple)) and abs(int(self)) * max(len(other), 1) > MAX_ITEMS * 100:
            raise OverflowError(f"the repeated sequence would be longer than {MAX_ITEMS * 100} items")
        return int.__mul__(int(self), other)

    __rmul__ = __mul__


def guarded_arguments(value: Any) -> Any:
    """A copy of plain data with every ``int`` (not ``bool``) as a :class:`BoundedInt`."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return BoundedInt(value)
    if isinstance(value, list):
        return [guarded_arguments(v) for v in value]
    if isinstance(value, tuple):
        return tuple(guarded_arguments(v) for v in value)
    if isinstance(value, dict):
        return {k: guarded_arguments(v) for k, v in value.items()}
    return value


class BoundedContext(decimal.Context):
    """A decimal context that refuses a precision over :data:`MAX_DECIMAL_PREC` (``ValueError``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "prec" and isinstance(value, int) and value > MAX_DECIMAL_PREC:
            raise ValueError(f"decimal precision {value} is over the limit of {MAX_DECIMAL_PREC}")
        super().__setattr__(name, value)


_MP_PREC_BITS = int(MAX_DECIMAL_PREC * 3.33) + 16
_mp_lock = threading.Lock()
_mp_users = 0
_mp_class: type | None = None


def _bounded_mp_class(cls: type) -> type:
    """A subclass of mpmath's context class whose ``prec``/``dps`` setters refuse more than the decimal limit."""
    prec, dps = cls.prec, cls.dps

    def set_prec(ctx: Any, n: Any) -> None:
        if int(n) > _MP_PREC_BITS:
            raise ValueError(f"mpmath precision {n} bits is over the limit of {_MP_PREC_BITS}")
        prec.fset(ctx, n)

    def set_dps(ctx: Any, n: Any) -> None:
        if int(n) > MAX_DECIMAL_PREC:
            raise ValueError(f"mpmath precision {n} digits is over the limit of {MAX_DECIMAL_PREC}")
        dps.fset(ctx, n)

    return type(f"Bounded{cls.__name__}", (cls,), {"prec": property(prec.fget, set_prec),
                                                    "dps": property(dps.fget, set_dps)})


@contextmanager
def _bounded_mpmath() -> Iterator[None]:
    """While any guarded call runs, mpmath's global context refuses a precision over the limit; its precision is
    restored afterwards (mpmath's context is process-global, so the bound is shared and counted)."""
    global _mp_users, _mp_class
    mpmath = sys.modules.get("mpmath")
    if mpmath is None:
        yield
        return
    mp = mpmath.mp
    saved_prec = mp.prec
    with _mp_lock:
        if _mp_users == 0:
            _mp_class = type(mp)
            mp.__class__ = _bounded_mp_class(_mp_class)
        _mp_users += 1
    try:
        yield
    finally:
        with _mp_lock:
            _mp_users -= 1
            if _mp_users == 0 and _mp_class is not None:
                mp.__class__ = _mp_class
        mp.prec = saved_prec


@contextmanager
def isolated_numeric_context() -> Iterator[None]:
    """Give the block a fresh bounded decimal context and a bounded mpmath precision; restore both afterwards."""
    saved = decimal.getcontext()
    decimal.setcontext(BoundedContext(prec=saved.prec, rounding=saved.rounding, Emin=saved.Emin, Emax=saved.Emax,
                                      capitals=saved.capitals, clamp=saved.clamp, flags=[], traps=[
                                          s for s, on in saved.traps.items() if on]))
    try:
        with _bounded_mpmath():
            yield
    finally:
        decimal.setcontext(saved)


# -- the deadline ----------------------------------------------------------------------------------------------------
class _Watchdog:
    """One daemon thread that raises :class:`CallTimeout` into threads whose armed deadline passed."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, int]] = []  # (deadline, token, thread id)
        self._armed: set[int] = set()
        self._fired: set[int] = set()
        self._tokens = itertools.count()
        self._pid = -1

    def _ensure_thread(self) -> bool:
        if self._pid != os.getpid():  # first use, or a forked child (threads do not survive fork)
            self._heap.clear()
            self._armed.clear()
            self._fired.clear()
            try:
                threading.Thread(target=self._run, name="spade-call-deadline", daemon=True).start()
            except RuntimeError:  # no threads here (a sandbox worker's limits): its own call timeout applies
                return False
            self._pid = os.getpid()
        return True

    def arm(self, seconds: float) -> int | None:
        """A token for :meth:`disarm`, or None when no watchdog thread can run in this process."""
        with self._cond:
            if not self._ensure_thread():
                return None
            token = next(self._tokens)
            entry = (time.monotonic() + seconds, token, threading.get_ident())
            heapq.heappush(self._heap, entry)
            self._armed.add(token)
            if self._heap[0] is entry:  # only an earlier deadline than the one being waited for needs a wake-up
                self._cond.notify()
            return token

    def disarm(self, token: int | None) -> None:
        """Stop the deadline of ``token`` and drop a timeout it raised that is still pending (idempotent)."""
        if token is None:
            return
        self._armed.discard(token)  # one C call under the GIL: no firing for this token starts after it
        with self._cond:  # waits out a firing in progress
            fired = token in self._fired
            self._fired.discard(token)
        if fired:  # the exception may still be pending: clear it so it cannot land outside the guarded call
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)

    def _run(self) -> None:
        pid = os.getpid()
        with self._cond:
            while pid == os.getpid():
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, token, ident = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                heapq.heappush(self._heap, (time.monotonic() + REFIRE_S, token, ident))  # until disarmed
                self._fired.add(token)
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(CallTimeout))


_WATCHDOG = _Watchdog()


def call_with_deadline(func: Callable[[], T], timeout_s: float) -> T:
    """``func()``, or :class:`CallTimeout` once it has run ``timeout_s`` seconds of Python code."""
    token = _WATCHDOG.arm(timeout_s)
    try:
        return func()
    finally:
        while True:  # a timeout can land inside disarm itself; disarm again until it completes
            try:
                _WATCHDOG.disarm(token)
                break
            except CallTimeout:
                continue


def guarded_call(func: Callable[[], T], *, timeout_s: float = DEFAULT_TIMEOUT_S) -> T:
    """``func()`` in an isolated numeric context under a deadline (see the module docstring)."""
    with isolated_numeric_context():
        return call_with_deadline(func, timeout_s)
