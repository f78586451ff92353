"""A corpus from Hugging Face ``datasets``: a local path (``save_to_disk`` folder, data files, dataset folder) or the
name of a dataset already in the local cache. Nothing is ever downloaded: loading runs in offline mode.

Two modes. *Mapped* (default for saved datasets, cached names and files under ``stream_threshold_bytes``): the
Arrow data is memory-mapped, the index reads only the id and topics columns, and documents are read by row.
*Streaming* (default for larger raw files, or ``streaming=True``): rows are read front to back; sampling keeps a
seeded weighted reservoir over the first ``max_scan`` rows, and lookup by id scans.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spade_core.corpora.base import (
    Corpus,
    Document,
    FieldMap,
    IndexedCorpus,
    KeyedReservoir,
    topic_set_weight,
    validate_topic_weights,
)
from spade_core.corpora.errors import CorpusConfigError, CorpusError, CorpusNotFoundError, DocumentNotFoundError

_BUILDERS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv", ".arrow": "arrow"}
_offline_lock = threading.RLock()


def _datasets() -> Any:
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - exercised only where datasets is absent
        raise CorpusError("Hugging Face corpora need the `datasets` package: pip install datasets") from exc
    return datasets


@contextlib.contextmanager
def hub_offline() -> Iterator[None]:
    """Force Hugging Face Hub offline mode for the duration (the env vars are read at import, so patch both)."""
    datasets = _datasets()
    import huggingface_hub.constants as hub_constants

    with _offline_lock:
        saved = (hub_constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE,
                 getattr(datasets.config, "HF_DATASETS_OFFLINE", None))
        hub_constants.HF_HUB_OFFLINE = True
        datasets.config.HF_HUB_OFFLINE = True
        datasets.config.HF_DATASETS_OFFLINE = True
        try:
            yield
        finally:
            hub_constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE = saved[0], saved[1]
            if saved[2] is not None:
                datasets.config.HF_DATASETS_OFFLINE = saved[2]


def _size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def open_dataset(
    source: str | os.PathLike[str],
    *,
    split: str = "train",
    config_name: str | None = None,
    streaming: bool | None = None,
    cache_dir: str | None = None,
    stream_threshold_bytes: int = 1 << 30,
) -> tuple[Any, bool]:
    """Open ``source`` offline; return ``(dataset, streaming)``. Raises :class:`CorpusNotFoundError` if absent."""
    datasets = _datasets()
    path = Path(source)
    try:
        with hub_offline():
            if path.is_dir() and ((path / "state.json").is_file() or (path / "dataset_dict.json").is_file()):
                loaded = datasets.load_from_disk(str(path))
                if isinstance(loaded, datasets.DatasetDict):
                    if split not in loaded:
                        raise CorpusConfigError(f"{path} has no split {split!r}; splits: {sorted(loaded)}")
                    loaded = loaded[split]
                if streaming:
                    return loaded.to_iterable_dataset(), True
                return loaded, False
            if path.exists():
                stream = streaming if streaming is not None else _size_of(path) > stream_threshold_bytes
                if path.is_file():
                    builder = _BUILDERS.get(path.suffix.lower())
                    if builder is None:
                        raise CorpusConfigError(
                            f"{path}: unknown data file type {path.suffix!r}; expected one of {sorted(_BUILDERS)}"
                        )
                    ds = datasets.load_dataset(builder, data_files=str(path), split=split, streaming=stream,
                                               cache_dir=cache_dir)
                else:
                    ds = datasets.load_dataset(str(path), config_name, split=split, streaming=stream,
                                               cache_dir=cache_dir)
                return ds, stream
            # a dataset name: only the local cache; memory-mapped, so "streaming" is a view over the cached Arrow
            ds = datasets.load_dataset(str(source), config_name, split=split, cache_dir=cache_dir)
            return (ds.to_iterable_dataset(), True) if streaming else (ds, False)
    except CorpusError:
        raise
    except (ConnectionError, FileNotFoundError) as exc:
        raise CorpusNotFoundError(
            f"Hugging Face dataset {str(source)!r} is neither a local path nor in the local cache"
            f"{f' ({cache_dir})' if cache_dir else ''}; SPADE never downloads. Pass a local path (a save_to_disk folder"
            f" or data files), or fetch it on a machine with network and copy the cache. ({type(exc).__name__}: {exc})"
        ) from exc
    except ValueError as exc:  # unknown split / config
        raise CorpusConfigError(f"cannot open Hugging Face dataset {str(source)!r}: {exc}") from exc


class _MappedDataset(IndexedCorpus):
    """A memory-mapped ``datasets.Dataset``: random access by row."""

    def __init__(self, ds: Any, fields: FieldMap, name: str, where: str) -> None:
        super().__init__()
        missing = [f for f in (fields.text, fields.id) if f is not None and f not in ds.column_names]
        if missing:
            raise CorpusConfigError(f"{where}: no column(s) {missing}; columns are {ds.column_names}")
        self.fields, self.name, self.where = fields, name, where
        self._ds = ds.select_columns([c for c in fields.columns() if c in ds.column_names])

    def _build_index(self) -> None:
        cols = [c for c in (self.fields.id, self.fields.topics) if c is not None and c in self._ds.column_names]
        table = self._ds.select_columns(cols).with_format("arrow")[:] if cols else None
        n = len(self._ds)
        ids_col = table.column(self.fields.id).to_pylist() if table is not None and self.fields.id in cols else None
        topics_col = (
            table.column(self.fields.topics).to_pylist() if table is not None and self.fields.topics in cols else None
        )
        ids, topics = [], []
        for i in range(n):
            row: dict[str, Any] = {}
            if ids_col is not None:
                row[self.fields.id or ""] = ids_col[i]
            if topics_col is not None:
                row[self.fields.topics or ""] = topics_col[i]
            where = f"{self.where} row {i}"
            ids.append(self.fields.doc_id(row, i, where=where))
            topics.append(self.fields.topic_tuple(row, where=where))
        self._set_index(ids, topics, where=self.where)

    def _read(self, positions: Sequence[int]) -> list[Document]:
        return [self.fields.document(self._ds[int(p)], int(p), source=self.name, where=f"{self.where} row {p}")
                for p in positions]

    def __iter__(self) -> Iterator[Document]:
        for i, row in enumerate(self._ds):
            yield self.fields.document(row, i, source=self.name, where=f"{self.where} row {i}")


class _StreamingDataset(Corpus):
    """A ``datasets.IterableDataset``: read front to back, never held in memory."""

    def __init__(self, ds: Any, fields: FieldMap, name: str, where: str, max_scan: int) -> None:
        self.fields, self.name, self.where, self.max_scan = fields, name, where, max_scan
        self._ds = ds
        self._length: int | None = None
        self._topic_counts: dict[str, int] | None = None

    def _rows(self) -> Iterator[tuple[int, dict[str, Any]]]:
        for i, row in enumerate(self._ds):
            if i == 0:
                missing = [f for f in (self.fields.text, self.fields.id) if f is not None and f not in row]
                if missing:
                    raise CorpusConfigError(f"{self.where}: no column(s) {missing}; columns are {sorted(row)}")
            yield i, row

    def __iter__(self) -> Iterator[Document]:
        for i, row in self._rows():
            yield self.fields.document(row, i, source=self.name, where=f"{self.where} row {i}")

    def _scan_counts(self) -> None:
        counts: dict[str, int] = {}
        n = 0
        for i, row in self._rows():
            for topic in self.fields.topic_tuple(row, where=f"{self.where} row {i}"):
                counts[topic] = counts.get(topic, 0) + 1
            n += 1
        self._length, self._topic_counts = n, counts

    def __len__(self) -> int:
        """The row count: from the dataset's metadata when known, else counted by one full pass (then cached)."""
        if self._length is None:
            splits = getattr(getattr(self._ds, "info", None), "splits", None)
            split = getattr(self._ds, "split", None)
            if splits and split is not None and str(split) in splits and splits[str(split)].num_examples:
                self._length = int(splits[str(split)].num_examples)
            else:
                self._scan_counts()
        assert self._length is not None
        return self._length

    def topics(self) -> dict[str, int]:
        """Topic counts from one full pass (cached)."""
        if self._topic_counts is None:
            self._scan_counts()
        assert self._topic_counts is not None
        return dict(sorted(self._topic_counts.items(), key=lambda kv: -kv[1]))

    def get(self, doc_id: str) -> Document:
        """Scan for the document (streaming datasets have no index): O(rows)."""
        for doc in self:
            if doc.doc_id == doc_id:
                return doc
        raise DocumentNotFoundError(f"no document {doc_id!r} in streaming corpus {self.name!r}")

    def sample(self, n: int, seed: int, topic_weights: Mapping[str, float] | None = None) -> list[Document]:
        """Weighted reservoir over the first ``max_scan`` rows (later rows are never sampled)."""
        if n < 0:
            raise CorpusConfigError(f"cannot sample a negative number of documents ({n})")
        weights = validate_topic_weights(topic_weights)
        reservoir = KeyedReservoir(n, seed)
        for i, row in self._rows():
            if i >= self.max_scan:
                break
            where = f"{self.where} row {i}"
            reservoir.offer((i, row), topic_set_weight(self.fields.topic_tuple(row, where=where), weights))
        picked = reservoir.result()
        if n and not picked:
            raise CorpusConfigError(
                f"no document among the first {self.max_scan} rows of {self.name!r} has positive weight under"
                f" {dict(topic_weights or {})}"
            )
        rounds = np.random.default_rng([seed, 1])
        first_round = list(picked)
        while len(picked) < n:  # like indexed corpora: further rounds repeat documents in a new seeded order
            picked.extend(first_round[i] for i in rounds.permutation(len(first_round)))
        picked = picked[:n]
        return [self.fields.document(row, i, source=self.name, where=f"{self.where} row {i}") for i, row in picked]


class HFDatasetCorpus(Corpus):
    """Documents from a Hugging Face dataset, opened offline (see the module docstring for the two modes)."""

    def __init__(
        self,
        source: str | os.PathLike[str],
        *,
        split: str = "train",
        config_name: str | None = None,
        streaming: bool | None = None,
        text_field: str = "text",
        id_field: str | None = "id",
        title_field: str | None = "title",
        topics_field: str | None = "topics",
        name: str | None = None,
        cache_dir: str | None = None,
        max_scan: int = 100_000,
        stream_threshold_bytes: int = 1 << 30,
    ) -> None:
        ds, self.streaming = open_dataset(source, split=split, config_name=config_name, streaming=streaming,
                                          cache_dir=cache_dir, stream_threshold_bytes=stream_threshold_bytes)
        fields = FieldMap(text=text_field, id=id_field, title=title_field, topics=topics_field)
        self.name = name or Path(str(source)).name or str(source)
        where = f"{source} [{split}]"
        self._impl: Corpus = (
            _StreamingDataset(ds, fields, self.name, where, max_scan) if self.streaming
            else _MappedDataset(ds, fields, self.name, where)
        )

    def __len__(self) -> int:
        return len(self._impl)

    def get(self, doc_id: str) -> Document:
        return self._impl.get(doc_id)

    def __iter__(self) -> Iterator[Document]:
        return iter(self._impl)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._impl

    def topics(self) -> dict[str, int]:
        return self._impl.topics()

    def sample(self, n: int, seed: int, topic_weights: Mapping[str, float] | None = None) -> list[Document]:
        return self._impl.sample(n, seed, topic_weights)
