"""The corpus search tool: keyword search over the grounding corpus (the embedded Wikipedia summaries by default).

An inverted index over titles and texts is built once per process and corpus; scoring is BM25-lite (term
frequency with document-length normalisation and idf), enough to find the article a task is grounded on.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, defaultdict
from typing import Any

from spade_core import linear_re
from spade_tools.base import ToolDef, ToolError, ToolSet

_TOKEN = linear_re.compile(r"[a-z0-9]+")
_lock = threading.Lock()
_indexes: dict[int, _Index] = {}


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class _Index:
    def __init__(self, corpus: Any) -> None:
        self.corpus = corpus
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.ids: list[str] = []
        self.titles: list[str] = []
        self.lengths: list[int] = []
        for position, document in enumerate(corpus):
            words = tokens(document.title) * 3 + tokens(document.text)
            self.ids.append(document.doc_id)
            self.titles.append(document.title)
            self.lengths.append(len(words))
            for word, count in Counter(words).items():
                self.postings[word].append((position, count))
        self.average = sum(self.lengths) / max(1, len(self.lengths))

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        scores: dict[int, float] = defaultdict(float)
        n = len(self.ids)
        for word in set(tokens(query)):
            posting = self.postings.get(word, [])
            if not posting:
                continue
            idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for position, tf in posting:
                norm = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * self.lengths[position] / self.average))
                scores[position] += idf * norm
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def _index_for(corpus: Any) -> _Index:
    with _lock:
        index = _indexes.get(id(corpus))
        if index is None or index.corpus is not corpus:
            index = _indexes[id(corpus)] = _Index(corpus)
        return index


def default_corpus() -> Any:
    from spade_core.corpora.wiki import WikiOfflineCorpus

    return WikiOfflineCorpus()


class CorpusSearch(ToolSet):
    """Search the grounding corpus and read documents; the snapshot is the list of documents opened."""

    KIND = "corpus"
    TOOL_DEFS = (
        ToolDef(
            "search_corpus", "Find documents about a topic; returns ids, titles and a short snippet.",
            {
                "type": "object",
                "properties": {"query": {"type": "string", "minLength": 1, "maxLength": 500},
                               "k": {"type": "integer", "minimum": 1, "maximum": 20}},
                "required": ["query"],
                "additionalProperties": False,
            },
        ),
        ToolDef(
            "read_document", "Read one document by id.",
            {
                "type": "object",
                "properties": {"doc_id": {"type": "string", "minLength": 1, "maxLength": 300}},
                "required": ["doc_id"],
                "additionalProperties": False,
            },
        ),
    )

    def __init__(self, corpus: Any = None) -> None:
        self._corpus = corpus
        self.opened: list[str] = []

    @property
    def corpus(self) -> Any:
        if self._corpus is None:
            self._corpus = default_corpus()
        return self._corpus

    def prepare(self) -> None:
        _index_for(self.corpus)  # built once per process (seconds): never charged to one call's deadline

    def search_corpus(self, query: str, k: int = 5) -> dict[str, Any]:
        index = _index_for(self.corpus)
        hits = []
        for position, score in index.search(query, k):
            document = self.corpus.get(index.ids[position])
            hits.append({"doc_id": document.doc_id, "title": document.title, "score": round(score, 3),
                         "snippet": document.text[:200]})
        return {"results": hits}

    def read_document(self, doc_id: str) -> dict[str, Any]:
        try:
            document = self.corpus.get(doc_id)
        except KeyError as exc:
            raise ToolError(f"no document {doc_id!r}; use search_corpus to find ids") from exc
        self.opened.append(document.doc_id)
        return {"doc_id": document.doc_id, "title": document.title, "text": document.text[:4000]}

    def snapshot(self) -> dict[str, Any]:
        return {"opened": list(self.opened)}
