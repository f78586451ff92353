"""The environment memory: every candidate ever written, searchable by meaning, on top of the registry store.

The store stays the single source of truth (records, status, stats, and cached embedding vectors); this object
keeps an in-memory :class:`VectorIndex` in step with it. ``refresh`` is cheap when nothing changed (one pragma):
otherwise it embeds records that have no vector yet (once, cached in the store for every later process), loads
vectors stored since the last refresh, and re-reads statuses if another writer committed. Queries refresh first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spade_core.memory.embedding import Embedder, default_embedder
from spade_core.memory.errors import EmbeddingError
from spade_core.memory.index import IndexConfig, VectorIndex
from spade_core.memory.replay import (
    COUNT_KEY,
    LAST_STEP_KEY,
    STEP_META_KEY,
    ReplayConfig,
    replay_distribution,
    score_of,
)
from spade_core.memory.text import TEXT_VERSION, record_text
from spade_registry.records import Record, Status
from spade_registry.store import RegistryStore

FAILURE_STATUSES: tuple[str, ...] = (Status.FAILED.value, Status.TRIVIAL.value, Status.IMPOSSIBLE.value)


@dataclass(frozen=True)
class MemoryConfig:
    """Thresholds and tuning of the environment memory."""

    duplicate_similarity: float = 0.95  # cosine similarity at or above which a candidate is a near-duplicate
    duplicate_statuses: tuple[str, ...] = (Status.ACCEPTED.value,)
    failure_statuses: tuple[str, ...] = FAILURE_STATUSES
    embed_batch: int = 64
    index: IndexConfig = field(default_factory=IndexConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)


@dataclass(frozen=True)
class Neighbour:
    """A record near a query: its id, cosine similarity, and status/domain at query time."""

    rid: int
    similarity: float
    status: str
    domain: str

    @property
    def distance(self) -> float:
        """Cosine distance, ``1 - similarity``."""
        return 1.0 - self.similarity


Query = str | int | Record | np.ndarray


class EnvironmentMemory:
    """kNN retrieval, near-duplicate detection and PLR replay over the records of one registry store."""

    def __init__(self, store: RegistryStore, *, embedder: Embedder | None = None,
                 config: MemoryConfig | None = None) -> None:
        self.store = store
        self.embedder = embedder or default_embedder()
        self.config = config or MemoryConfig()
        self.model_key = f"{self.embedder.name}/text-v{TEXT_VERSION}"
        self.index = VectorIndex(self.embedder.dim, self.config.index)
        self._lock = threading.RLock()
        self._seq = 0  # last embeddings.seq loaded into the index
        self._checked_rid = 0  # every record up to this rid has a vector
        self._marker: tuple[int, int] | None = None  # the store's change marker at the last refresh

    # -- keeping the index in step with the store --------------------------------------------------------------
    def refresh(self, *, force: bool = False) -> int:
        """Bring the index up to date with the store; return how many vectors were added."""
        with self._lock:
            marker = self.store.change_marker()
            if not force and marker == self._marker:
                return 0
            first = self._marker is None
            self._embed_missing()
            added = self._load_new_vectors()
            if not first:  # rows loaded before may have changed status since (vectors just loaded are current)
                self._sync_statuses()
            # other connections' commits are seen through data_version as read *before* this refresh (so a commit
            # during it is caught next time); our own writes (cached vectors) must not count as changes
            self._marker = (marker[0], self.store.change_marker()[1])
            return added

    def _embed_missing(self) -> None:
        while True:
            rids = self.store.rids_without_embedding(self.model_key, after_rid=self._checked_rid,
                                                     limit=self.config.embed_batch)
            if not rids:
                return
            records = [self.store.get(rid) for rid in rids]
            vectors = self.embed_texts([record_text(r.manifest, r.code) for r in records])
            self.store.put_embeddings(self.model_key, [(r.rid, v.tobytes()) for r, v in zip(records, vectors)],
                                      dim=self.embedder.dim)
            self._checked_rid = max(self._checked_rid, rids[-1])

    def _load_new_vectors(self) -> int:
        rows = self.store.get_embeddings(self.model_key, after_seq=self._seq)
        if not rows:
            return 0
        dim = self.embedder.dim
        matrix = np.frombuffer(b"".join(row[4] for row in rows), dtype=np.float32)
        if matrix.size != len(rows) * dim:
            raise EmbeddingError(f"stored vectors under {self.model_key!r} are not all {dim}-d; the cache is corrupt")
        added = self.index.add([row[1] for row in rows], matrix.reshape(len(rows), dim),
                               [row[3] for row in rows], [row[2] for row in rows])
        self._seq = rows[-1][0]
        return added

    def _sync_statuses(self) -> None:
        for _seq, rid, domain, status, _ in self.store.get_embeddings(self.model_key, with_vectors=False):
            if rid in self.index and self.index.attributes(rid) != (status, domain):
                self.index.set_attributes(rid, status=status, domain=domain)

    def __len__(self) -> int:
        self.refresh()
        return len(self.index)

    # -- embedding ---------------------------------------------------------------------------------------------
    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts with this memory's embedder (unit float32 rows)."""
        vectors = np.asarray(self.embedder.embed(list(texts)), dtype=np.float32)
        if vectors.shape != (len(texts), self.embedder.dim):
            raise EmbeddingError(f"embedder {self.embedder.name!r} returned shape {vectors.shape}, expected"
                                 f" ({len(texts)}, {self.embedder.dim})")
        return vectors

    def embed_candidate(self, manifest: Mapping[str, Any], code: str) -> np.ndarray:
        """The vector a record with this manifest and code would get (for checks before storing it)."""
        return self.embed_texts([record_text(manifest, code)])[0]

    def _query_vector(self, query: Query) -> tuple[np.ndarray, set[int]]:
        """(vector, record ids to leave out) for any kind of query."""
        if isinstance(query, np.ndarray):
            return query.astype(np.float32).reshape(-1), set()
        if isinstance(query, str):
            return self.embed_texts([query])[0], set()
        rid = query.rid if isinstance(query, Record) else int(query)
        if rid in self.index:
            return self.index.vector(rid), {rid}
        record = query if isinstance(query, Record) else self.store.get(rid)
        return self.embed_candidate(record.manifest, record.code), {rid}

    # -- retrieval ---------------------------------------------------------------------------------------------
    def neighbours(
        self,
        query: Query,
        k: int = 5,
        *,
        statuses: Collection[str] | None = (Status.ACCEPTED.value,),
        domain: str | None = None,
        exclude: Iterable[int] = (),
        exact: bool = False,
    ) -> list[Neighbour]:
        """The ``k`` records most similar to ``query`` (text, vector, record or rid; a record never finds itself).

        ``statuses`` filters by status (``None``: any); ``domain`` by domain.
        """
        with self._lock:
            self.refresh()
            vector, own = self._query_vector(query)
            hits = self.index.search(
                vector, k, statuses=None if statuses is None else [str(s) for s in statuses],
                domains=None if domain is None else [domain], exclude=own | {int(r) for r in exclude}, exact=exact,
            )
            return [Neighbour(rid, sim, *self.index.attributes(rid)) for rid, sim in hits]

    def accepted_neighbours(self, query: Query, k: int = 5, *, domain: str | None = None) -> list[Neighbour]:
        """Accepted environments near ``query``: the designer's good examples."""
        return self.neighbours(query, k, statuses=(Status.ACCEPTED.value,), domain=domain)

    def failed_neighbours(self, query: Query, k: int = 5, *, domain: str | None = None) -> list[Neighbour]:
        """Failed (or trivial, impossible) candidates near ``query``: the designer's "do not repeat" list."""
        return self.neighbours(query, k, statuses=self.config.failure_statuses, domain=domain)

    def records(self, neighbours: Iterable[Neighbour]) -> list[Record]:
        """The full records (code, manifest, report) of some neighbours, in the same order."""
        return [self.store.get(n.rid) for n in neighbours]

    def near_duplicates(
        self,
        query: Query,
        *,
        domain: str | None = None,
        threshold: float | None = None,
        k: int = 5,
    ) -> list[Neighbour]:
        """Records (of ``duplicate_statuses``) at cosine similarity >= ``threshold`` to ``query``, closest first.

        Searched exactly: a duplicate must not hide in an unprobed list.
        """
        limit = self.config.duplicate_similarity if threshold is None else threshold
        hits = self.neighbours(query, k, statuses=self.config.duplicate_statuses, domain=domain, exact=True)
        return [h for h in hits if h.similarity >= limit]

    def find_duplicate(self, manifest: Mapping[str, Any], code: str, *, domain: str | None = None,
                       threshold: float | None = None) -> Neighbour | None:
        """The closest near-duplicate of a candidate not yet stored, or None."""
        found = self.near_duplicates(self.embed_candidate(manifest, code), domain=domain, threshold=threshold, k=1)
        return found[0] if found else None

    # -- replay ------------------------------------------------------------------------------------------------
    def replay_step(self) -> int:
        """How many replay rounds have been drawn from this store (the staleness clock)."""
        value = self.store.get_meta(STEP_META_KEY)
        return int(value) if value else 0

    def replay_distribution(self, *, domain: str | None = None) -> tuple[list[int], np.ndarray]:
        """``(rids, P)`` over accepted records: the PLR mixture of score rank and staleness."""
        rows = self.store.stats_index(status=Status.ACCEPTED, domain=domain)
        if not rows:
            return [], np.zeros(0)
        cfg = self.config.replay
        step = self.replay_step()
        scores = np.array([score_of(stats, cfg) for _, stats in rows], dtype=np.float64)
        staleness = np.array([step - int(stats.get(LAST_STEP_KEY, 0) or 0) for _, stats in rows], dtype=np.float64)
        return [rid for rid, _ in rows], replay_distribution(scores, staleness, cfg)

    def sample_replay(self, n: int, seed: int, *, domain: str | None = None, mark: bool = True,
                      eligible: Callable[[int], bool] | None = None) -> list[int]:
        """Draw up to ``n`` distinct accepted records to replay (record ids), deterministic under ``seed``.

        With ``mark`` the replay clock advances and the chosen records' staleness resets (``replay_last_step``) and
        ``replay_count`` grows; concurrent samplers may share a clock tick, which only blurs staleness slightly.
        """
        rids, p = self.replay_distribution(domain=domain)
        if eligible is not None and rids:
            keep = np.array([bool(eligible(rid)) for rid in rids])
            p = np.where(keep, p, 0.0)
            p = p / p.sum() if p.sum() > 0 else p
        if not rids or n <= 0 or not np.any(p > 0):
            return []
        rng = np.random.default_rng(seed)
        size = min(n, int(np.count_nonzero(p)))
        chosen = [rids[i] for i in rng.choice(len(rids), size=size, replace=False, p=p)]
        if mark:
            step = self.replay_step() + 1
            self.store.set_meta(STEP_META_KEY, str(step))
            for rid in chosen:
                count = int(self.store.get(rid).stats.get(COUNT_KEY, 0) or 0)
                self.store.update_stats(rid, {LAST_STEP_KEY: step, COUNT_KEY: count + 1})
        return chosen

    def record_score(self, ref: str | int, score: float) -> float:
        """Re-score a record after a replay (EMA with weight ``score_ema``; 1.0 replaces); return the new score."""
        cfg = self.config.replay
        if not np.isfinite(score):
            raise ValueError(f"replay score must be finite, got {score}")
        old = self.store.get(ref).stats.get(cfg.score_key)
        if isinstance(old, (int, float)) and not isinstance(old, bool):
            new = (1 - cfg.score_ema) * float(old) + cfg.score_ema * float(score)
        else:
            new = float(score)
        self.store.update_stats(ref, {cfg.score_key: new})
        return new
