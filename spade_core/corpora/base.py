"""The corpus interface: documents that ground the designer, sampled deterministically and weighted by topic.

A corpus never needs to hold its texts in memory. Indexed corpora keep a small index (document ids, a topic-set
code per document, and whatever locates the text: a byte offset, a row number) and read texts on demand.

Sampling is weighted sampling without replacement by exponential keys (Efraimidis & Spirakis): every document gets
the key ``log(u) / w`` from one seeded stream, and the ``n`` largest keys win. So the same seed, corpus and weights
always give the same documents, and ``sample(n)`` is a prefix of ``sample(m)`` for ``m > n``.
"""

from __future__ import annotations

import abc
import heapq
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spade_core.corpora.errors import CorpusConfigError, CorpusFormatError, DocumentNotFoundError

DEFAULT_TOPIC_KEY = "*"
"""In ``topic_weights``, the weight of any topic not listed (and of documents without topics); 0 if absent."""


@dataclass(frozen=True)
class Document:
    """One grounding document. ``doc_id`` is unique within its corpus; ``source`` names the corpus."""

    doc_id: str
    title: str
    text: str
    topics: tuple[str, ...] = ()
    source: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict, hash=False)


class Corpus(abc.ABC):
    """A collection of documents: length, lookup by id, iteration and seeded, topic-weighted sampling."""

    name: str = "corpus"

    @abc.abstractmethod
    def __len__(self) -> int:
        """Number of documents."""

    @abc.abstractmethod
    def get(self, doc_id: str) -> Document:
        """The document with this id; raises :class:`DocumentNotFoundError` if there is none."""

    @abc.abstractmethod
    def __iter__(self) -> Iterator[Document]:
        """Every document, in corpus order, read lazily."""

    @abc.abstractmethod
    def topics(self) -> dict[str, int]:
        """How many documents carry each topic."""

    @abc.abstractmethod
    def sample(self, n: int, seed: int, topic_weights: Mapping[str, float] | None = None) -> list[Document]:
        """``n`` distinct documents (fewer only if the corpus is smaller), deterministic under ``seed``.

        ``topic_weights`` maps topic -> non-negative weight; a document weighs as its best-weighted topic, and
        unlisted topics weigh ``topic_weights.get("*", 0)``. ``None`` means uniform. When ``n`` exceeds the number
        of documents with positive weight, further rounds repeat them in a new seeded order.
        """

    def __contains__(self, doc_id: object) -> bool:
        if not isinstance(doc_id, str):
            return False
        try:
            self.get(doc_id)
        except DocumentNotFoundError:
            return False
        return True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def validate_topic_weights(topic_weights: Mapping[str, float] | None) -> dict[str, float] | None:
    """Check weights are finite and non-negative; return a plain dict (or None for uniform)."""
    if topic_weights is None:
        return None
    clean: dict[str, float] = {}
    for topic, weight in topic_weights.items():
        try:
            value = float(weight)
        except (TypeError, ValueError):
            raise CorpusConfigError(f"topic weight for {topic!r} must be a number, got {weight!r}") from None
        if not math.isfinite(value) or value < 0:
            raise CorpusConfigError(f"topic weight for {topic!r} must be finite and >= 0, got {weight!r}")
        clean[str(topic)] = value
    return clean


def topic_set_weight(topics: Sequence[str], weights: Mapping[str, float] | None) -> float:
    """The weight of a document with these topics: its best-weighted topic, else the ``"*"`` default."""
    if weights is None:
        return 1.0
    default = weights.get(DEFAULT_TOPIC_KEY, 0.0)
    if not topics:
        return default
    return max(weights.get(t, default) for t in topics)


def normalise_topics(value: Any, *, where: str) -> tuple[str, ...]:
    """A topics field as a tuple of strings: accepts None, a string, or a list of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, (list, tuple)) and all(isinstance(t, str) for t in value):
        return tuple(t for t in value if t)
    raise CorpusFormatError(f"{where}: topics must be a string or a list of strings, got {type(value).__name__}")


class IndexedCorpus(Corpus):
    """A corpus with a compact in-memory index; subclasses supply the index and read documents by position.

    Subclasses call :meth:`_set_index` (or override :meth:`_build_index`, called once on first use) and implement
    :meth:`_read` (positions -> documents, in the given order).
    """

    def __init__(self) -> None:
        self._doc_ids: list[str] | None = None
        self._position: dict[str, int] | None = None
        self._topic_sets: list[tuple[str, ...]] = []
        self._set_codes: np.ndarray = np.zeros(0, dtype=np.int32)

    # -- index -------------------------------------------------------------------------------------------
    def _build_index(self) -> None:
        raise NotImplementedError

    def _ensure_index(self) -> None:
        if self._doc_ids is None:
            self._build_index()
            if self._doc_ids is None:
                raise RuntimeError(f"{type(self).__name__}._build_index did not call _set_index")

    def _set_index(self, doc_ids: list[str], topics: Iterable[tuple[str, ...]], *, where: str) -> None:
        """Install the index: ids (unique) and one topic tuple per document."""
        position: dict[str, int] = {}
        for i, doc_id in enumerate(doc_ids):
            if doc_id in position:
                raise CorpusFormatError(
                    f"{where}: document id {doc_id!r} appears twice (entries {position[doc_id]} and {i}); ids must be"
                    f" unique (pick another id field, or none to number documents by position)"
                )
            position[doc_id] = i
        codes: dict[tuple[str, ...], int] = {}
        set_codes = np.empty(len(doc_ids), dtype=np.int32)
        count = 0
        for i, topic_tuple in enumerate(topics):
            set_codes[i] = codes.setdefault(topic_tuple, len(codes))
            count += 1
        if count != len(doc_ids):
            raise CorpusFormatError(f"{where}: {len(doc_ids)} ids but {count} topic entries")
        self._doc_ids = doc_ids
        self._position = position
        self._topic_sets = list(codes)
        self._set_codes = set_codes

    @abc.abstractmethod
    def _read(self, positions: Sequence[int]) -> list[Document]:
        """Documents at these index positions, in the same order."""

    # -- Corpus API ----------------------------------------------------------------------------------------
    def __len__(self) -> int:
        self._ensure_index()
        assert self._doc_ids is not None
        return len(self._doc_ids)

    def doc_ids(self) -> list[str]:
        """All document ids in corpus order."""
        self._ensure_index()
        assert self._doc_ids is not None
        return list(self._doc_ids)

    def get(self, doc_id: str) -> Document:
        self._ensure_index()
        assert self._position is not None
        pos = self._position.get(doc_id)
        if pos is None:
            raise DocumentNotFoundError(f"no document {doc_id!r} in corpus {self.name!r} ({len(self)} documents)")
        return self._read([pos])[0]

    def __contains__(self, doc_id: object) -> bool:
        self._ensure_index()
        assert self._position is not None
        return isinstance(doc_id, str) and doc_id in self._position

    def topics(self) -> dict[str, int]:
        self._ensure_index()
        per_set = np.bincount(self._set_codes, minlength=len(self._topic_sets))
        counts: Counter[str] = Counter()
        for topic_tuple, n in zip(self._topic_sets, per_set.tolist()):
            for topic in topic_tuple:
                counts[topic] += n
        return dict(counts.most_common())

    def weights(self, topic_weights: Mapping[str, float] | None) -> np.ndarray:
        """Per-document sampling weights (float64) under ``topic_weights``."""
        self._ensure_index()
        clean = validate_topic_weights(topic_weights)
        per_set = np.array([topic_set_weight(t, clean) for t in self._topic_sets], dtype=np.float64)
        return per_set[self._set_codes] if len(self._set_codes) else np.zeros(0)

    def sample(self, n: int, seed: int, topic_weights: Mapping[str, float] | None = None) -> list[Document]:
        return self._read(self.sample_positions(n, seed, topic_weights))

    def sample_positions(self, n: int, seed: int, topic_weights: Mapping[str, float] | None = None) -> list[int]:
        """Index positions that :meth:`sample` would return."""
        if n < 0:
            raise CorpusConfigError(f"cannot sample a negative number of documents ({n})")
        weights = self.weights(topic_weights)
        if n == 0 or len(weights) == 0:
            return []
        eligible = int(np.count_nonzero(weights))
        if eligible == 0:
            raise CorpusConfigError(
                f"no document of corpus {self.name!r} has positive weight under {dict(topic_weights or {})}; its"
                f" topics are {sorted(self.topics())[:20]} (add '*': w to give unlisted topics a weight)"
            )
        rng = np.random.default_rng(seed)
        out: list[int] = []
        while len(out) < n:  # one round without replacement per pass; rounds beyond the first repeat documents
            order = _weighted_order(weights, rng)
            out.extend(order[: n - len(out)].tolist())
        return out


def _weighted_order(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Positions with positive weight, ordered by descending exponential key (a weighted random permutation)."""
    u = rng.random(len(weights))
    positive = weights > 0
    logs = np.log(np.maximum(u, np.finfo(np.float64).tiny))
    keys = np.where(positive, logs / np.where(positive, weights, 1.0), -np.inf)
    eligible = np.flatnonzero(positive)
    return eligible[np.argsort(-keys[eligible], kind="stable")]


class KeyedReservoir:
    """Streaming weighted sampling without replacement (the same exponential keys, kept in a bounded heap).

    Feed items in stream order with their weights; :meth:`result` returns the ``n`` best, best first. Used by
    corpora that can only be read front to back.
    """

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self._rng = np.random.default_rng(seed)
        self._heap: list[tuple[float, int, Any]] = []
        self._counter = 0

    def offer(self, item: Any, weight: float) -> None:
        u = float(self._rng.random())  # drawn for every item, so the stream of keys does not depend on weights
        self._counter += 1
        if weight <= 0 or self.n == 0:
            return
        key = math.log(max(u, 1e-300)) / weight
        entry = (key, -self._counter, item)
        if len(self._heap) < self.n:
            heapq.heappush(self._heap, entry)
        elif entry > self._heap[0]:
            heapq.heapreplace(self._heap, entry)

    def result(self) -> list[Any]:
        return [item for _, _, item in sorted(self._heap, reverse=True)]


@dataclass(frozen=True)
class FieldMap:
    """Which fields of a row hold the document parts.

    ``id=None`` numbers documents by position (``"0"``, ``"1"``, ...); a missing title falls back to the id; a
    missing topics field means no topics. Ids that are integers are used as their decimal string.
    """

    text: str = "text"
    id: str | None = "id"
    title: str | None = "title"
    topics: str | None = "topics"

    def columns(self) -> list[str]:
        """The fields this map reads, text first."""
        return [f for f in (self.text, self.id, self.title, self.topics) if f is not None]

    def doc_id(self, row: Mapping[str, Any], pos: int, *, where: str) -> str:
        if self.id is None:
            return str(pos)
        value = row.get(self.id)
        if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
            problem = "is missing" if value is None else f"is {type(value).__name__} {value!r}, not a string or integer"
            raise CorpusFormatError(
                f"{where}: id field {self.id!r} {problem}; fix the row, choose another id field, or pass id_field=None"
                f" to number documents by position"
            )
        return str(value)

    def topic_tuple(self, row: Mapping[str, Any], *, where: str) -> tuple[str, ...]:
        return normalise_topics(row.get(self.topics), where=where) if self.topics else ()

    def text_of(self, row: Mapping[str, Any], *, where: str) -> str:
        text = row.get(self.text)
        if not isinstance(text, str):
            problem = "is missing" if text is None else f"is {type(text).__name__}, not a string"
            raise CorpusFormatError(f"{where}: text field {self.text!r} {problem} (fields: {sorted(row)[:12]})")
        return text

    def document(self, row: Mapping[str, Any], pos: int, *, source: str, where: str) -> Document:
        """Build a :class:`Document` from one row, checking types."""
        text = self.text_of(row, where=where)
        doc_id = self.doc_id(row, pos, where=where)
        title = row.get(self.title) if self.title else None
        return Document(doc_id, title if isinstance(title, str) and title else doc_id, text,
                        self.topic_tuple(row, where=where), source)
