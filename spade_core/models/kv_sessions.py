"""Keys and values kept per sequence between generate calls, so a prompt that extends one prefills only what is new.

A multi-turn episode sends its whole token history every turn (the last prompt, the completion, the environment's
message). :class:`KVSessions` keeps, after each call, every row's keys and values (its prompt and the completion
tokens that were fed back), keyed by those token ids; a later prompt that starts with kept ids takes that entry (the
longest kept prefix) and computes only the rest. This is llama.cpp's per-sequence cache with vLLM's prefix matching
(match by ids, not by a caller's session id), so callers change nothing: any prompt that extends an earlier
sequence, from any sampler, reuses it.

Bounds: the kept bytes never exceed ``budget_bytes`` (a generator's ``kv_cache_mb``, default
:data:`spade_core.models.base.DEFAULT_KV_CACHE_MB`); :meth:`KVSessions.put` drops the least recently used entries
before it stores one (a dropped sequence is simply prefilled again next time). Kept states belong to one version of
the weights: :meth:`KVSessions.check_version` drops everything when the weights changed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

MIB = 1024 * 1024

LayerStates = list[tuple[torch.Tensor, torch.Tensor]]
"""Per layer, the keys and values of one sequence: each ``[kv_heads, length, head_dim]``."""


@dataclass
class KeptSequence:
    """One sequence's keys and values: ``ids`` are the token ids of the positions ``layers`` hold, in order."""

    ids: np.ndarray
    layers: LayerStates
    nbytes: int


@dataclass(frozen=True)
class Match:
    """The kept entry sharing the longest prefix with a prompt (``key`` None: nothing reusable)."""

    key: int | None
    length: int


class KVSessions:
    """Kept per-sequence states under a byte budget, least recently used dropped first."""

    def __init__(self, budget_bytes: int) -> None:
        if budget_bytes < 0:
            raise ValueError(f"the kept key/value budget must be >= 0 bytes, got {budget_bytes}")
        self.budget_bytes = budget_bytes
        self._entries: OrderedDict[int, KeptSequence] = OrderedDict()
        self._serial = 0
        self._version: int | None = None
        self.nbytes = 0

    @property
    def enabled(self) -> bool:
        return self.budget_bytes > 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self.nbytes = 0

    def check_version(self, version: int) -> None:
        """Drop every entry when the weights' version is not the one the entries were computed with."""
        if version != self._version:
            self.clear()
            self._version = version

    def match(self, prompt: Sequence[int], limit: int) -> Match:
        """The entry whose ids share the longest prefix with ``prompt``, capped at ``limit`` tokens."""
        if not self._entries or limit <= 0:
            return Match(None, 0)
        ids = np.asarray(prompt[:limit], dtype=np.int64)
        best = Match(None, 0)
        for key, entry in self._entries.items():
            n = min(len(entry.ids), len(ids))
            if n <= best.length or entry.ids[0] != ids[0]:
                continue
            differ = np.flatnonzero(entry.ids[:n] != ids[:n])
            length = int(differ[0]) if differ.size else n
            if length > best.length:
                best = Match(key, length)
        return best

    def take(self, key: int) -> KeptSequence:
        """Remove and return an entry (its states move into a batch; the batch's rows are kept again after)."""
        entry = self._entries.pop(key)
        self.nbytes -= entry.nbytes
        return entry

    def put(self, ids: Sequence[int], layers: LayerStates) -> int:
        """Keep a sequence's states, first dropping least recently used entries to stay within the budget; returns
        how many were dropped. A sequence larger than the whole budget is not kept."""
        nbytes = sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in layers)
        if not self.enabled or nbytes > self.budget_bytes or not len(ids):
            return 0
        dropped = 0
        while self.nbytes + nbytes > self.budget_bytes:
            _, old = self._entries.popitem(last=False)
            self.nbytes -= old.nbytes
            dropped += 1
        self._serial += 1
        self._entries[self._serial] = KeptSequence(np.asarray(ids, dtype=np.int64), layers, nbytes)
        self.nbytes += nbytes
        return dropped
