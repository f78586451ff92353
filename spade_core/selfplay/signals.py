"""SIGTERM and Ctrl-C (SIGINT) during a self-play run: the first one asks the run to stop (a
:class:`~spade_core.deadlines.StopRequest` that expires every phase's deadline, so the iteration stops at its next
turn boundary and records itself as partial); a second one of the same kind gets the handler that was there before
(Ctrl-C: ``KeyboardInterrupt``; SIGTERM: the default, which ends the process)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from spade_core.deadlines import StopRequest

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextmanager
def stop_on_signals(stop: StopRequest) -> Iterator[StopRequest]:
    """Within the block, SIGTERM and SIGINT request ``stop`` (only in the main thread, where Python delivers
    signals; elsewhere the block runs with the handlers it found)."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}

    def handle(number: int, _frame: FrameType | None) -> None:
        stop.request(signal.Signals(number).name)
        signal.signal(number, previous[number])  # a second one is not asked twice

    for number in STOP_SIGNALS:
        signal.signal(number, handle)
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def exit_status(reason: str | None) -> int:
    """The shell's exit status for a run a signal stopped (128 + its number), 1 for any other stop reason."""
    try:
        return 128 + int(signal.Signals[reason]) if reason else 1
    except KeyError:
        return 1
