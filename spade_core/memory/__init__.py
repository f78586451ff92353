"""Environment memory: embeddings cached in the registry store, kNN retrieval of accepted and failed candidates,
near-duplicate detection, and PLR-style replay prioritisation (docs/design.md §4)."""

from spade_core.memory.behaviour import BehaviourIndex, BehaviourMatch
from spade_core.memory.embedding import Embedder, HashingEmbedder, MiniLMEmbedder, default_embedder, minilm_model_dir
from spade_core.memory.errors import EmbedderUnavailableError, EmbeddingError, MemoryArchiveError
from spade_core.memory.fingerprint import Fingerprint, Similarity
from spade_core.memory.index import IndexConfig, VectorIndex
from spade_core.memory.memory import FAILURE_STATUSES, EnvironmentMemory, MemoryConfig, Neighbour
from spade_core.memory.replay import ReplayConfig, replay_distribution
from spade_core.memory.text import TEXT_VERSION, record_text

__all__ = [
    "BehaviourIndex", "BehaviourMatch", "Fingerprint", "Similarity", "FAILURE_STATUSES", "TEXT_VERSION", "Embedder", "EmbedderUnavailableError", "EmbeddingError",
    "EnvironmentMemory", "HashingEmbedder", "IndexConfig", "MemoryArchiveError", "MemoryConfig", "MiniLMEmbedder",
    "Neighbour", "ReplayConfig", "VectorIndex", "default_embedder", "minilm_model_dir", "record_text",
    "replay_distribution",
]
