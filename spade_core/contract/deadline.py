"""A wall-clock deadline for trusted environment code that runs in this process (bundled seed environments).

Designer code runs in a sandbox worker, which the host can kill; a bundled environment's ``step`` runs in the host's
own thread, so nothing could stop a step that loops (a parser that backtracks on an agent's action, a search that
never ends). :func:`call_with_deadline` arms one shared watchdog thread for the call; past the deadline the watchdog
raises :class:`DeadlineExceeded` inside the calling thread (``PyThreadState_SetAsyncExc``), at its next bytecode, and
the call ends as :class:`~spade_core.errors.SandboxTimeout`, which ``SpadeEnv`` records like any environment failure.
``DeadlineExceeded`` derives from ``BaseException`` so that environment code's ``except Exception`` cannot swallow it.
A C call (a linear-time RE2 match) finishes before the exception is raised.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from spade_core.errors import SandboxTimeout

IN_PROCESS_DEADLINE_S = 10.0
"""Wall-clock seconds one call (reset, step, hint, reference) of a bundled environment may take in this process."""
TICK_S = 0.05
"""How often the watchdog looks at the armed deadlines (their resolution)."""

T = TypeVar("T")


class DeadlineExceeded(BaseException):
    """Raised inside a call that ran past its deadline (never seen outside :func:`call_with_deadline`)."""


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> None:
    """Schedule ``exc`` in thread ``thread_id`` (``None``: cancel a scheduled one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


class _Watchdog:
    """One daemon thread for every armed deadline of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: dict[int, tuple[int, float]] = {}  # token -> (thread id, monotonic due time)
        self._fired: dict[int, int] = {}  # token -> thread id, for deadlines that fired and whose call is not over
        self._tokens = itertools.count(1)
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> int:
        with self._lock:
            token = next(self._tokens)
            self._armed[token] = (threading.get_ident(), time.monotonic() + seconds)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="spade-deadline", daemon=True)
                self._thread.start()
        return token

    def disarm(self, token: int) -> None:
        """The call of ``token`` returned: its deadline no longer fires, and one that fired but was not raised yet
        is cancelled (unless an enclosing call's deadline of this thread fired too)."""
        me = threading.get_ident()
        with self._lock:
            self._armed.pop(token, None)
            if token in self._fired and not any(t != token and tid == me for t, tid in self._fired.items()):
                _raise_in(me, None)

    def fired(self, token: int) -> bool:
        with self._lock:
            return token in self._fired

    def forget(self, token: int) -> None:
        with self._lock:
            self._armed.pop(token, None)
            self._fired.pop(token, None)

    def _run(self) -> None:
        while True:
            time.sleep(TICK_S)
            now = time.monotonic()
            with self._lock:
                for token, (thread_id, due) in list(self._armed.items()):
                    if due <= now:
                        del self._armed[token]
                        self._fired[token] = thread_id
                        _raise_in(thread_id, DeadlineExceeded)


_WATCHDOG = _Watchdog()


def call_with_deadline(fn: Callable[[], T], *, seconds: float, what: str) -> T:
    """``fn()``, interrupted with :class:`SandboxTimeout` when it runs longer than ``seconds`` of wall-clock time
    (deadlines nest: an enclosing call's deadline passes through as that call's)."""
    token = _WATCHDOG.arm(seconds)
    try:
        try:
            return fn()
        finally:
            _WATCHDOG.disarm(token)
    except DeadlineExceeded:
        if not _WATCHDOG.fired(token):
            raise  # an enclosing call's deadline
        raise SandboxTimeout(f"{what} ran past its in-process deadline of {seconds:g} s (a bundled environment's "
                             "call must finish quickly; the episode ends here)") from None
    finally:
        _WATCHDOG.forget(token)
