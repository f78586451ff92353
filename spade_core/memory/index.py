"""In-memory cosine k-nearest-neighbour index with status/domain filters: exact when small, IVF when large.

Vectors are unit-length float32 rows in one matrix. Below ``ivf_min_size`` a query is one matrix-vector product
(brute force is fastest there). Above it, an inverted-file index takes over: spherical k-means centroids partition
the rows, rows are stored sorted by their list so each list is one contiguous slice, and a query scans only the
lists whose centroids are nearest (``nprobe``), plus the recent "tail" of rows not yet filed into lists. Filters
are filter-aware: lists without a matching row are skipped, probing continues until ``nprobe`` lists with matches
and ``k`` candidates are seen, and a filter matching few rows is answered exactly from those rows alone.

Growth is incremental: new rows join the tail; the tail is filed into lists once it exceeds a fraction of the
index, and the centroids are retrained when the index has grown ``retrain_growth`` times since training.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from spade_core.memory.errors import EmbeddingError


@dataclass(frozen=True)
class IndexConfig:
    """Tuning of :class:`VectorIndex` (defaults measured on 2 cores; see ``benchmarks/bench_memory.py``)."""

    ivf_min_size: int = 16_384
    nlist: int | None = None  # None: about 2 * sqrt(n), between 16 and 4096
    nprobe: int | None = None  # None: max(8, nlist // 6); recall@10 ~0.97 on MiniLM wiki embeddings
    train_points_per_list: int = 48
    kmeans_iters: int = 8
    exact_filter_max: int = 4096
    max_tail_fraction: float = 0.1
    min_tail: int = 1024
    retrain_growth: float = 4.0
    seed: int = 0


class VectorIndex:
    """Rows keyed by record id, each with a status and a domain; see the module docstring."""

    def __init__(self, dim: int, config: IndexConfig | None = None) -> None:
        self.dim = dim
        self.config = config or IndexConfig()
        self._n = 0
        self._n_base = 0  # rows [0, n_base) are sorted by list; [n_base, n) are the unfiled tail
        cap = 1024
        self._vecs = np.zeros((cap, dim), dtype=np.float32)
        self._rids = np.zeros(cap, dtype=np.int64)
        self._status = np.zeros(cap, dtype=np.int16)
        self._domain = np.zeros(cap, dtype=np.int32)
        self._list_of = np.zeros(cap, dtype=np.int32)
        self._pos: dict[int, int] = {}
        self._status_codes: dict[str, int] = {}
        self._domain_codes: dict[str, int] = {}
        self._centroids: np.ndarray | None = None
        self._offsets = np.zeros(1, dtype=np.int64)
        self._trained_n = 0
        self._version = 0
        self._mask_cache: dict[tuple[object, object], tuple[int, np.ndarray, np.ndarray]] = {}

    # -- size and membership -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def __contains__(self, rid: object) -> bool:
        return rid in self._pos

    @property
    def is_ivf(self) -> bool:
        """Whether queries use the inverted file (else exact brute force)."""
        return self._centroids is not None

    @property
    def nlist(self) -> int:
        return 0 if self._centroids is None else len(self._centroids)

    @property
    def nprobe(self) -> int:
        if self.config.nprobe is not None:
            return self.config.nprobe
        return max(8, self.nlist // 6)

    def rids(self) -> np.ndarray:
        """Record ids of every row (in internal order)."""
        return self._rids[: self._n].copy()

    def vector(self, rid: int) -> np.ndarray:
        """The stored vector of a record (a copy)."""
        return self._vecs[self._pos[rid]].copy()

    def attributes(self, rid: int) -> tuple[str, str]:
        """``(status, domain)`` of a record."""
        pos = self._pos[rid]
        status = _name_of(self._status_codes, int(self._status[pos]))
        return status, _name_of(self._domain_codes, int(self._domain[pos]))

    # -- writes --------------------------------------------------------------------------------------------
    def add(self, rids: Sequence[int], vectors: np.ndarray, statuses: Sequence[str], domains: Sequence[str]) -> int:
        """Append rows (records already present are skipped); return how many were added."""
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        if not (len(rids) == len(vectors) == len(statuses) == len(domains)):
            raise EmbeddingError(
                f"add() needs one vector, status and domain per record: {len(rids)} ids, {len(vectors)} vectors,"
                f" {len(statuses)} statuses, {len(domains)} domains"
            )
        keep: list[int] = []
        seen: set[int] = set()
        for i, rid in enumerate(rids):
            rid = int(rid)
            if rid not in self._pos and rid not in seen:
                seen.add(rid)
                keep.append(i)
        if not keep:
            return 0
        self._grow(self._n + len(keep))
        start, end = self._n, self._n + len(keep)
        block = vectors[keep]
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        self._vecs[start:end] = block / np.where(norms > 0, norms, 1.0)
        self._rids[start:end] = [int(rids[i]) for i in keep]
        self._status[start:end] = [self._code(self._status_codes, statuses[i]) for i in keep]
        self._domain[start:end] = [self._code(self._domain_codes, domains[i]) for i in keep]
        self._list_of[start:end] = -1
        for offset, i in enumerate(keep):
            self._pos[int(rids[i])] = start + offset
        self._n = end
        self._version += 1
        self._maintain()
        return len(keep)

    def set_attributes(self, rid: int, *, status: str | None = None, domain: str | None = None) -> None:
        """Change a record's status and/or domain (e.g. after a status change in the store)."""
        pos = self._pos[rid]
        if status is not None:
            self._status[pos] = self._code(self._status_codes, status)
        if domain is not None:
            self._domain[pos] = self._code(self._domain_codes, domain)
        self._version += 1

    def _code(self, table: dict[str, int], value: str) -> int:
        code = table.get(value)
        if code is None:
            code = table[value] = len(table)
        return code

    def _grow(self, needed: int) -> None:
        cap = len(self._rids)
        if needed <= cap:
            return
        new_cap = max(needed, cap * 2)
        for attr in ("_vecs", "_rids", "_status", "_domain", "_list_of"):
            old = getattr(self, attr)
            new = np.zeros((new_cap, *old.shape[1:]), dtype=old.dtype)
            new[: self._n] = old[: self._n]
            setattr(self, attr, new)

    # -- IVF maintenance -----------------------------------------------------------------------------------
    def _maintain(self) -> None:
        cfg = self.config
        if self._n < cfg.ivf_min_size:
            return
        if self._centroids is None or self._n >= self._trained_n * cfg.retrain_growth:
            self._train()
            self._file_rows(0)
        elif self._n - self._n_base > max(cfg.min_tail, int(cfg.max_tail_fraction * self._n_base)):
            self._file_rows(self._n_base)

    def rebuild(self) -> None:
        """Retrain the centroids and refile every row now (normally automatic)."""
        if self._n >= 1:
            self._train()
            self._file_rows(0)

    def _target_nlist(self) -> int:
        if self.config.nlist is not None:
            return max(1, min(self.config.nlist, self._n))
        return int(min(4096, max(16, round(2 * math.sqrt(self._n)))))

    def _train(self) -> None:
        cfg = self.config
        nlist = self._target_nlist()
        rng = np.random.default_rng(cfg.seed)
        x = self._vecs[: self._n]
        n_train = min(self._n, nlist * cfg.train_points_per_list)
        sample = x[np.sort(rng.choice(self._n, size=n_train, replace=False))]
        centroids = sample[rng.choice(n_train, size=nlist, replace=False)].copy()
        for _ in range(cfg.kmeans_iters):
            assign = _nearest(sample, centroids)
            order = np.argsort(assign, kind="stable")
            counts = np.bincount(assign, minlength=nlist)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            nonempty = counts > 0
            sums = np.zeros_like(centroids)
            sums[nonempty] = np.add.reduceat(sample[order], starts[nonempty], axis=0)
            empty = np.flatnonzero(~nonempty)
            if len(empty):  # re-seed empty lists from random training points
                sums[empty] = sample[rng.choice(n_train, size=len(empty), replace=False)]
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            centroids = (sums / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        self._centroids = np.ascontiguousarray(centroids)
        self._trained_n = self._n

    def _file_rows(self, start: int) -> None:
        """Assign rows [start, n) to lists, then re-sort all rows by list so each list is contiguous."""
        assert self._centroids is not None
        n = self._n
        if start < n:
            self._list_of[start:n] = _nearest(self._vecs[start:n], self._centroids)
        order = np.argsort(self._list_of[:n], kind="stable")
        for attr in ("_vecs", "_rids", "_status", "_domain", "_list_of"):
            arr = getattr(self, attr)
            arr[:n] = arr[:n][order]
        self._pos = dict(zip(self._rids[:n].tolist(), range(n)))
        counts = np.bincount(self._list_of[:n], minlength=len(self._centroids))
        self._offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._n_base = n
        self._version += 1

    # -- queries -------------------------------------------------------------------------------------------
    def _filter(
        self, statuses: Collection[str] | None, domains: Collection[str] | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(mask over rows, matching rows per list) for a filter; (None, None) when nothing is filtered."""
        if statuses is None and domains is None:
            return None, None
        key = (None if statuses is None else frozenset(statuses), None if domains is None else frozenset(domains))
        cached = self._mask_cache.get(key)
        if cached is not None and cached[0] == self._version:
            return cached[1], cached[2]
        n = self._n
        mask = np.ones(n, dtype=bool)
        if key[0] is not None:
            allowed = np.zeros(len(self._status_codes) + 1, dtype=bool)
            allowed[np.array([self._status_codes[s] for s in key[0] if s in self._status_codes], dtype=np.intp)] = True
            mask &= allowed[self._status[:n]]
        if key[1] is not None:
            allowed = np.zeros(len(self._domain_codes) + 1, dtype=bool)
            allowed[np.array([self._domain_codes[d] for d in key[1] if d in self._domain_codes], dtype=np.intp)] = True
            mask &= allowed[self._domain[:n]]
        per_list = (np.bincount(self._list_of[: self._n_base][mask[: self._n_base]], minlength=self.nlist)
                    if self._centroids is not None else np.zeros(0, dtype=np.int64))
        if len(self._mask_cache) > 64:
            self._mask_cache.clear()
        self._mask_cache[key] = (self._version, mask, per_list)
        return mask, per_list

    def search(
        self,
        query: np.ndarray,
        k: int,
        *,
        statuses: Collection[str] | None = None,
        domains: Collection[str] | None = None,
        exclude: Collection[int] = (),
        exact: bool = False,
    ) -> list[tuple[int, float]]:
        """The ``k`` most similar rows as ``(rid, cosine similarity)``, best first (ties by rid).

        ``statuses``/``domains`` keep only rows whose status/domain is listed; ``exclude`` drops record ids;
        ``exact=True`` forces brute force (the IVF result may miss a neighbour in an unprobed list).
        """
        if k <= 0 or self._n == 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise EmbeddingError(f"query has dimension {q.shape[0]}; this index holds {self.dim}-d vectors")
        norm = float(np.linalg.norm(q))
        q = q / norm if norm > 0 else q
        mask, per_list = self._filter(statuses, domains)
        excluded = np.asarray(sorted({self._pos[r] for r in exclude if r in self._pos}), dtype=np.int64)
        if len(excluded):
            was_in = mask[excluded] if mask is not None else np.ones(len(excluded), dtype=bool)
            mask = mask.copy() if mask is not None else np.ones(self._n, dtype=bool)
            mask[excluded] = False
            if self._centroids is not None:
                per_list = (per_list if per_list is not None else np.diff(self._offsets)).copy()
                filed = excluded[was_in & (excluded < self._n_base)]
                np.subtract.at(per_list, self._list_of[filed], 1)
        if mask is not None:
            matching = int(np.count_nonzero(mask))
            if matching == 0:
                return []
            if exact or self._centroids is None or matching <= self.config.exact_filter_max:
                positions = np.flatnonzero(mask)
                return self._top(positions, self._vecs[positions] @ q, k)
        if exact or self._centroids is None:
            return self._top(np.arange(self._n), self._vecs[: self._n] @ q, k)
        return self._ivf_search(q, k, mask, per_list)

    def _ivf_search(self, q: np.ndarray, k: int, mask: np.ndarray | None, per_list: np.ndarray | None
                    ) -> list[tuple[int, float]]:
        assert self._centroids is not None
        counts = per_list if per_list is not None else np.diff(self._offsets)
        order = np.argsort(-(self._centroids @ q))
        positions: list[np.ndarray] = []
        scores: list[np.ndarray] = []
        visited = found = 0
        nprobe = self.nprobe
        for lst in order.tolist():
            if counts[lst] == 0:
                continue
            s, e = int(self._offsets[lst]), int(self._offsets[lst + 1])
            sc = self._vecs[s:e] @ q
            if mask is None:
                positions.append(np.arange(s, e))
            else:
                keep = mask[s:e]
                sc = sc[keep]
                positions.append(np.flatnonzero(keep) + s)
            scores.append(sc)
            visited += 1
            found += len(sc)
            if visited >= nprobe and found >= k:
                break
        if self._n_base < self._n:  # the unfiled tail is always scanned
            tail = np.arange(self._n_base, self._n)
            if mask is not None:
                tail = tail[mask[self._n_base: self._n]]
            positions.append(tail)
            scores.append(self._vecs[tail] @ q)
        return self._top(np.concatenate(positions), np.concatenate(scores), k)

    def _top(self, positions: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        if len(positions) == 0:
            return []
        if len(scores) > k:
            part = np.argpartition(-scores, k - 1)[:k]
            positions, scores = positions[part], scores[part]
        rids = self._rids[positions]
        order = np.lexsort((rids, -scores))
        return [(int(rids[i]), float(scores[i])) for i in order]


def _nearest(x: np.ndarray, centroids: np.ndarray, chunk: int = 8192) -> np.ndarray:
    out = np.empty(len(x), dtype=np.int32)
    for s in range(0, len(x), chunk):
        out[s: s + chunk] = np.argmax(x[s: s + chunk] @ centroids.T, axis=1)
    return out


def _name_of(table: dict[str, int], code: int) -> str:
    for name, value in table.items():
        if value == code:
            return name
    raise KeyError(code)
