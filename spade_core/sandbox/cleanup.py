"""Process-wide cleanup of sandbox pools: every live pool is shut down at interpreter exit and on SIGTERM, so no
launcher or worker outlives the host that started it (the launcher also kills its workers if the host dies)."""

from __future__ import annotations

import atexit
import os
import signal
import threading
import weakref
from types import FrameType
from typing import Protocol


class Closable(Protocol):
    def shutdown(self) -> None: ...


_live_pools: weakref.WeakSet[Closable] = weakref.WeakSet()
_handlers_installed = False


def track(pool: Closable) -> None:
    """Shut ``pool`` down with the process (until :func:`untrack`)."""
    _live_pools.add(pool)


def untrack(pool: Closable) -> None:
    _live_pools.discard(pool)


def shutdown_all() -> None:
    """Shut down every live pool (runs at interpreter exit and on SIGTERM)."""
    for pool in list(_live_pools):
        try:
            pool.shutdown()
        except Exception:  # best effort at exit
            pass


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    shutdown_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install_signal_handlers() -> None:
    """Shut pools down on SIGTERM (Python's default would skip atexit); only from the main thread, only over
    the default disposition, so an application's own handler is left alone."""
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(shutdown_all)
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
