"""A corpus in Parquet files, read by row group so a large corpus is never loaded whole.

The index reads only the id and topics columns. Texts are read one row group at a time (the unit Parquet
compresses), and a sample touching several documents of one row group reads it once.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spade_core.corpora.base import Document, FieldMap, IndexedCorpus, normalise_topics
from spade_core.corpora.errors import CorpusError, CorpusFormatError, CorpusNotFoundError


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency of datasets and of spade's corpora extra
        raise CorpusError("Parquet corpora need pyarrow: pip install pyarrow") from exc
    return pq


class ParquetCorpus(IndexedCorpus):
    """Documents stored as rows of one Parquet file or of every ``*.parquet`` file in a folder (sorted by name)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        text_field: str = "text",
        id_field: str | None = "id",
        title_field: str | None = "title",
        topics_field: str | None = "topics",
        name: str | None = None,
        cached_row_groups: int = 4,
    ) -> None:
        super().__init__()
        pq = _pyarrow_parquet()
        self.path = Path(path)
        if self.path.is_dir():
            files = sorted(self.path.glob("*.parquet"))
            if not files:
                raise CorpusNotFoundError(f"folder {self.path} holds no *.parquet files")
        elif self.path.is_file():
            files = [self.path]
        else:
            raise CorpusNotFoundError(f"Parquet corpus {self.path} does not exist")
        self.fields = FieldMap(text=text_field, id=id_field, title=title_field, topics=topics_field)
        self.name = name or self.path.stem
        self._files: list[Any] = []
        for file in files:
            try:
                self._files.append(pq.ParquetFile(file))
            except Exception as exc:  # pyarrow raises ArrowInvalid/OSError for non-Parquet data
                raise CorpusFormatError(f"{file}: not a readable Parquet file ({exc})") from exc
        self._file_paths = files
        # one entry per row group across files: (file index, row group index); starts[i] = first global row
        self._groups: list[tuple[int, int]] = []
        starts = [0]
        for fi, pf in enumerate(self._files):
            names = set(pf.schema_arrow.names)
            missing = [f for f in (text_field, id_field) if f is not None and f not in names]
            if missing:
                raise CorpusFormatError(f"{files[fi]}: no column(s) {missing}; columns are {sorted(names)}")
            for gi in range(pf.num_row_groups):
                self._groups.append((fi, gi))
                starts.append(starts[-1] + pf.metadata.row_group(gi).num_rows)
        self._starts = np.asarray(starts, dtype=np.int64)
        self._cache: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._cache_size = max(1, cached_row_groups)
        self._lock = threading.Lock()

    def _columns(self, fi: int) -> list[str]:
        names = set(self._files[fi].schema_arrow.names)
        return [c for c in self.fields.columns() if c in names]

    def _build_index(self) -> None:
        ids: list[str] = []
        topics: list[tuple[str, ...]] = []
        for fi, pf in enumerate(self._files):
            names = set(pf.schema_arrow.names)
            cols = [c for c in (self.fields.id, self.fields.topics) if c is not None and c in names]
            for gi in range(pf.num_row_groups):
                table = pf.read_row_group(gi, columns=cols) if cols else None
                n = pf.metadata.row_group(gi).num_rows
                id_values = table.column(self.fields.id).to_pylist() if self.fields.id and table is not None else None
                has_topics = self.fields.topics is not None and self.fields.topics in cols and table is not None
                topic_values = table.column(self.fields.topics).to_pylist() if has_topics else [None] * n
                for j in range(n):
                    where = f"{self._file_paths[fi]} row group {gi} row {j}"
                    row = {self.fields.id: id_values[j]} if id_values is not None else {}
                    ids.append(self.fields.doc_id(row, len(ids), where=where))
                    topics.append(normalise_topics(topic_values[j], where=where))
        self._set_index(ids, topics, where=str(self.path))

    def _group_rows(self, g: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._cache.get(g)
            if rows is not None:
                self._cache.move_to_end(g)
                return rows
            fi, gi = self._groups[g]
            rows = self._files[fi].read_row_group(gi, columns=self._columns(fi)).to_pylist()
            self._cache[g] = rows
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return rows

    def _read(self, positions: Sequence[int]) -> list[Document]:
        self._ensure_index()
        out: list[Document | None] = [None] * len(positions)
        by_group: dict[int, list[int]] = {}
        for i, pos in enumerate(positions):
            by_group.setdefault(int(np.searchsorted(self._starts, pos, side="right")) - 1, []).append(i)
        for g, indices in by_group.items():
            rows = self._group_rows(g)
            fi, gi = self._groups[g]
            for i in indices:
                pos = int(positions[i])
                j = pos - int(self._starts[g])
                where = f"{self._file_paths[fi]} row group {gi} row {j}"
                out[i] = self.fields.document(rows[j], pos, source=self.name, where=where)
        return [d for d in out if d is not None]

    def __iter__(self) -> Iterator[Document]:
        pos = 0
        for fi, pf in enumerate(self._files):
            for batch in pf.iter_batches(columns=self._columns(fi)):
                for row in batch.to_pylist():
                    yield self.fields.document(row, pos, source=self.name, where=f"{self._file_paths[fi]} row {pos}")
                    pos += 1
