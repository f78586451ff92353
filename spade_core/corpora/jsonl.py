"""A corpus in a JSON Lines file, read through a byte-offset index so a large file is never loaded whole.

Building the index reads the file once, line by line, and keeps per document only its byte offset, its id and a
topic-set code; each document's text is read back with one seek when it is needed.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spade_core.corpora.base import Document, FieldMap, IndexedCorpus
from spade_core.corpora.errors import CorpusFormatError, CorpusNotFoundError


class JsonlCorpus(IndexedCorpus):
    """Documents stored one JSON object per line; blank lines are skipped.

    ``text_field``, ``id_field``, ``title_field`` and ``topics_field`` name the fields (see :class:`FieldMap`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        text_field: str = "text",
        id_field: str | None = "id",
        title_field: str | None = "title",
        topics_field: str | None = "topics",
        name: str | None = None,
        encoding: str = "utf-8",
    ) -> None:
        super().__init__()
        self.path = Path(path)
        if not self.path.is_file():
            raise CorpusNotFoundError(f"JSONL corpus file {self.path} does not exist (or is not a file)")
        self.fields = FieldMap(text=text_field, id=id_field, title=title_field, topics=topics_field)
        self.encoding = encoding
        self.name = name or self.path.stem
        self._offsets = np.zeros(0, dtype=np.int64)
        self._line_numbers = np.zeros(0, dtype=np.int64)
        self._lock = threading.Lock()

    def _parse(self, raw: bytes, line_no: int) -> dict[str, Any]:
        where = f"{self.path}:{line_no}"
        try:
            obj = json.loads(raw.decode(self.encoding))
        except UnicodeDecodeError as exc:
            raise CorpusFormatError(f"{where}: not {self.encoding} text ({exc.reason} at byte {exc.start})") from exc
        except json.JSONDecodeError as exc:
            raise CorpusFormatError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        if not isinstance(obj, dict):
            raise CorpusFormatError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        return obj

    def _build_index(self) -> None:
        offsets: list[int] = []
        line_numbers: list[int] = []
        ids: list[str] = []
        topics: list[tuple[str, ...]] = []
        offset = 0
        with self.path.open("rb") as fh:
            for line_no, raw in enumerate(fh, start=1):
                if raw.strip():
                    where = f"{self.path}:{line_no}"
                    row = self._parse(raw, line_no)
                    self.fields.text_of(row, where=where)  # fail now, naming the line, rather than when sampled
                    ids.append(self.fields.doc_id(row, len(ids), where=where))
                    topics.append(self.fields.topic_tuple(row, where=where))
                    offsets.append(offset)
                    line_numbers.append(line_no)
                offset += len(raw)
        self._offsets = np.asarray(offsets, dtype=np.int64)
        self._line_numbers = np.asarray(line_numbers, dtype=np.int64)
        self._set_index(ids, topics, where=str(self.path))

    def _read(self, positions: Sequence[int]) -> list[Document]:
        self._ensure_index()
        docs: list[Document] = []
        with self._lock, self.path.open("rb") as fh:
            for pos in positions:
                fh.seek(int(self._offsets[pos]))
                line_no = int(self._line_numbers[pos])
                row = self._parse(fh.readline(), line_no)
                docs.append(self.fields.document(row, pos, source=self.name, where=f"{self.path}:{line_no}"))
        return docs

    def __iter__(self) -> Iterator[Document]:
        pos = 0
        with self.path.open("rb") as fh:
            for line_no, raw in enumerate(fh, start=1):
                if raw.strip():
                    row = self._parse(raw, line_no)
                    yield self.fields.document(row, pos, source=self.name, where=f"{self.path}:{line_no}")
                    pos += 1
