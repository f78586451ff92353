"""Behavioural fingerprints of stored environments, cached in the registry store (computed once per record).

The store's ``embeddings`` table keeps one fingerprint per record under :data:`FINGERPRINT_MODEL`. A record accepted
through validation arrives with the fingerprint its validation computed (``record_outcome`` writes it); any other
record of a compared status (bundled seeds, records stored before fingerprints existed) is fingerprinted on the
first query that needs it: bundled code in-process (and once per installed source, across stores:
:mod:`spade_core.memory.fingerprint_cache`), designer code in the sandbox. A record that cannot be played at
all gets the fingerprint of its code alone (the behaviour parts stay empty) so it is not retried on every query.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from spade_core.contract.env import SpadeEnv
from spade_core.memory.fingerprint import DIM, FINGERPRINT_MODEL, Fingerprint, Similarity, fingerprint, similarities
from spade_core.memory.fingerprint_cache import cached_fingerprint, remember_fingerprint
from spade_registry.errors import BadRecordError
from spade_registry.records import Record, Status, Trust
from spade_registry.store import RegistryStore

ScoreFn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""Ranks stored fingerprints from part-wise similarity arrays ``(text, dynamics, shape)``; higher is closer."""

COMPARED_STATUSES: tuple[Status, ...] = (Status.ACCEPTED,)
"""Records a candidate is compared with: the pool the agent trains on."""


@dataclass(frozen=True)
class BehaviourMatch:
    """A stored environment and how similar a fingerprint is to it."""

    rid: int
    ref: str
    similarity: Similarity


def record_env_factory(record: Record) -> Callable[[], SpadeEnv]:
    """Fresh instances of a stored record (bundled code in-process, designer code in the sandbox)."""
    from spade_core.gym_bridge.make import env_from_record

    return lambda: env_from_record(record)


def _play_fingerprint(record: Record) -> tuple[Fingerprint, bool]:
    """The record's fingerprint, and whether it was played (a load error leaves the code shape alone)."""
    try:
        factory = record_env_factory(record)
        return fingerprint(record.code, factory)[0], True
    except Exception:  # a record that cannot be loaded still has a code shape
        return fingerprint(record.code, None)[0], False


def record_fingerprint(record: Record) -> Fingerprint:
    """Fingerprint a stored record by playing it (its code shape alone if it cannot even be built); a bundled
    seed's fingerprint comes from the on-disk cache of installed code when it is there."""
    if record.trust is not Trust.BUNDLED:
        return _play_fingerprint(record)[0]
    cached = cached_fingerprint(record.code)
    if cached is not None:
        return cached
    fp, played = _play_fingerprint(record)
    if played:  # a seed that failed to load (a missing optional dependency) is played again once it can be
        remember_fingerprint(record.code, fp)
    return fp


class BehaviourIndex:
    """Fingerprints of a store's records of ``statuses``, kept in step with the store (see the module docstring)."""

    def __init__(self, store: RegistryStore, *, statuses: Collection[Status] = COMPARED_STATUSES,
                 fingerprint_record: Callable[[Record], Fingerprint] = record_fingerprint) -> None:
        self.store = store
        self.statuses = tuple(Status(s) for s in statuses)
        self.fingerprint_record = fingerprint_record
        self._lock = threading.RLock()
        self._marker: tuple[int, int] | None = None
        self._rids = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, DIM), dtype=np.float32)
        self._live = np.zeros(0, dtype=bool)
        self._seq = 0

    def put(self, rid: int, fp: Fingerprint) -> None:
        """Cache a record's fingerprint (a record's first fingerprint is kept: records are immutable)."""
        self.store.put_embeddings(FINGERPRINT_MODEL, [(int(rid), fp.vector().tobytes())], dim=DIM)

    def refresh(self) -> int:
        """Fingerprint compared records that have none yet and load fingerprints stored since the last refresh
        (statuses re-read, so a retired record stops matching); returns how many fingerprints were computed."""
        with self._lock:
            marker = self.store.change_marker()
            if marker == self._marker:
                return 0
            wanted = {rid for status in self.statuses for rid, _ in self.store.stats_index(status=status)}
            listed = self.store.get_embeddings(FINGERPRINT_MODEL, with_vectors=False)
            missing = sorted(wanted - {row[1] for row in listed})
            for rid in missing:
                try:
                    record = self.store.get(rid)
                except BadRecordError:  # unreadable: left out of every comparison (the store's readers report it)
                    continue
                self.put(rid, self.fingerprint_record(record))
            rows = self.store.get_embeddings(FINGERPRINT_MODEL, after_seq=self._seq)
            if rows:
                fresh = np.frombuffer(b"".join(row[4] for row in rows), dtype=np.float32).reshape(len(rows), DIM)
                self._matrix = np.concatenate([self._matrix, fresh])
                self._rids = np.concatenate([self._rids, np.array([row[1] for row in rows], dtype=np.int64)])
                self._seq = rows[-1][0]
            status_of = {row[1]: row[3] for row in listed} | {row[1]: row[3] for row in rows}
            allowed = {s.value for s in self.statuses}
            self._live = np.array([status_of.get(int(rid)) in allowed for rid in self._rids], dtype=bool)
            self._marker = (marker[0], self.store.change_marker()[1])
            return len(missing)

    def __len__(self) -> int:
        self.refresh()
        return int(self._live.sum())

    def nearest(self, query: Fingerprint, k: int = 3, *, score: ScoreFn) -> list[BehaviourMatch]:
        """The ``k`` stored records ranked highest by ``score(text, dynamics, shape)`` (arrays of part-wise
        similarities), best first."""
        with self._lock:
            self.refresh()
            live = np.flatnonzero(self._live)
            if not len(live):
                return []
            text, dynamics, shape = similarities(query, self._matrix[live])
            order = np.argsort(-score(text, dynamics, shape), kind="stable")[:k]
            out = []
            for i in order:
                record = self.store.get(int(self._rids[live[i]]))
                out.append(BehaviourMatch(record.rid, record.env_id or f"#{record.rid}",
                                          Similarity(float(text[i]), float(dynamics[i]), float(shape[i]))))
            return out
