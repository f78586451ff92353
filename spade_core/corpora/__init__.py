"""Document corpora that ground the designer: the embedded wiki summaries, JSONL, Parquet and HF datasets.

:func:`open_corpus` turns a reference such as ``"wiki"``, ``"wiki:fr-fr"``, ``"jsonl:/data/docs.jsonl"``,
``"hf:/data/saved_ds"`` or a plain path into a :class:`Corpus`; names come from the ``spade_corpora`` plugin hook,
so third-party corpora are opened the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spade_core.corpora.base import DEFAULT_TOPIC_KEY, Corpus, Document, FieldMap, IndexedCorpus
from spade_core.corpora.errors import (
    CorpusConfigError,
    CorpusError,
    CorpusFormatError,
    CorpusNotFoundError,
    DocumentNotFoundError,
)
from spade_core.corpora.topics import topic_weights_for
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import load_object

DEFAULT_CORPUS = "wiki"

BUILTIN_CORPORA: dict[str, str] = {
    "wiki": "spade_core.corpora.wiki:WikiOfflineCorpus",
    "jsonl": "spade_core.corpora.jsonl:JsonlCorpus",
    "parquet": "spade_core.corpora.parquet:ParquetCorpus",
    "hf": "spade_core.corpora.hf:HFDatasetCorpus",
}
"""Factories of the bundled corpora (also contributed through the ``spade_corpora`` hook by the core plugin)."""


def corpus_factories() -> dict[str, str]:
    """Corpus name -> ``"module:attr"`` factory: the built-ins, then every plugin's ``spade_corpora`` contributions."""
    factories = dict(BUILTIN_CORPORA)
    for spec in get_plugins().collect_flat("spade_corpora"):
        factories[spec.name] = spec.factory
    return factories


def open_corpus(ref: str | None = None, **options: Any) -> Corpus:
    """Open a corpus by reference: ``name``, ``name:argument`` (the factory's first argument), or a path.

    A bare path picks the reader from its form: ``*.jsonl``/``*.ndjson`` -> JSONL, ``*.parquet`` or a folder of
    them -> Parquet, a ``save_to_disk`` folder -> HF datasets. ``options`` go to the factory (e.g. ``text_field``).
    """
    ref = (ref or DEFAULT_CORPUS).strip()
    factories = corpus_factories()
    name, sep, argument = ref.partition(":")
    if name in factories:
        factory = load_object(factories[name])
        return factory(argument, **options) if sep and argument else factory(**options)
    path = Path(ref)
    if path.exists():
        kind = _kind_of_path(path)
        if kind is not None:
            return load_object(factories[kind])(path, **options)
        raise CorpusConfigError(
            f"cannot tell what kind of corpus {path} is; prefix it with one of {sorted(factories)}"
            f" (e.g. 'jsonl:{path}')"
        )
    raise CorpusNotFoundError(
        f"unknown corpus {ref!r}: not a corpus name ({', '.join(sorted(factories))}) and no such file or folder"
    )


def _kind_of_path(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if path.is_file():
        return {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}.get(suffix)
    if (path / "state.json").is_file() or (path / "dataset_dict.json").is_file():
        return "hf"
    if any(path.glob("*.parquet")):
        return "parquet"
    return None


__all__ = [
    "BUILTIN_CORPORA", "DEFAULT_CORPUS", "DEFAULT_TOPIC_KEY", "Corpus", "CorpusConfigError", "CorpusError",
    "CorpusFormatError", "CorpusNotFoundError", "Document", "DocumentNotFoundError", "FieldMap", "IndexedCorpus",
    "corpus_factories", "open_corpus", "topic_weights_for",
]
