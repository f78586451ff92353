"""State a tool keeps for one episode, reachable only from the object that episode holds.

A dict keyed by the tool object (``WeakKeyDictionary`` included) finds entries by ``__hash__`` and ``__eq__``, which a
look-alike subclass defines as it likes: an object whose ``__eq__`` always answers True and whose hash matches
another episode's tool would be handed that episode's state. :class:`EpisodeSlots` finds an entry by identity only
(``id`` of the holder, confirmed with ``is`` against a weak reference), so nothing but the holding object itself
reaches it, whatever its class defines.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class EpisodeSlots(Generic[T]):
    """``holder -> state`` by identity; the state is released (``on_release``) when the holder is collected."""

    def __init__(self, on_release: Callable[[T], None] | None = None) -> None:
        self._slots: dict[int, tuple[weakref.ref, T]] = {}
        self._lock = threading.Lock()
        self._on_release = on_release

    def put(self, holder: object, state: T) -> None:
        key = id(holder)
        ref = weakref.ref(holder, lambda _ref, key=key: self._collected(key, _ref))
        with self._lock:
            self._slots[key] = (ref, state)

    def get(self, holder: object) -> T | None:
        with self._lock:
            entry = self._slots.get(id(holder))
        return entry[1] if entry is not None and entry[0]() is holder else None

    def pop(self, holder: object) -> T | None:
        with self._lock:
            entry = self._slots.get(id(holder))
            if entry is None or entry[0]() is not holder:
                return None
            del self._slots[id(holder)]
        return entry[1]

    def _collected(self, key: int, ref: weakref.ref) -> None:
        with self._lock:
            entry = self._slots.get(key)
            if entry is None or entry[0] is not ref:
                return
            del self._slots[key]
        if self._on_release is not None:
            self._on_release(entry[1])

    def __len__(self) -> int:
        with self._lock:
            return len(self._slots)
