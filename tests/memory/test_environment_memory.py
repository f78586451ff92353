"""EnvironmentMemory on a real registry store, with the hashing embedder (fast and deterministic): cached
embeddings, retrieval of accepted and failed records, near-duplicates, staying in step with other writers, replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from memory_helpers import env_source

from spade_core.memory import EnvironmentMemory, HashingEmbedder, MemoryConfig, ReplayConfig
from spade_core.memory.replay import average_ranks, rank_distribution, replay_distribution, staleness_distribution
from spade_registry.records import Status
from spade_registry.store import RegistryStore

THEMES = {
    "MazeRunner": ("Walk through a maze of corridors to reach the exit door", ["maze", "walls", "exit_door"]),
    "CoinFlipper": ("Predict coin flips and bet tokens on heads or tails", ["coins", "bet_tokens", "heads"]),
    "PrimeHunter": ("Find the prime factors of a composite integer", ["integer", "prime_factors", "divisor"]),
    "CardSorter": ("Sort a shuffled deck of playing cards by suit and rank", ["deck", "cards", "suit_rank"]),
}


class CountingEmbedder(HashingEmbedder):
    """The hashing embedder, counting how many texts it embedded (to check vectors are computed once)."""

    def __init__(self) -> None:
        super().__init__(64)
        self.texts = 0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.texts += len(texts)
        return super().embed(texts)


def add_theme(store: RegistryStore, name: str, status: Status, *, suffix: str = "", domain: str = "games") -> int:
    doc, attrs = THEMES[name]
    manifest, code = env_source(name + suffix, doc, [*attrs, f"variant{suffix}"] if suffix else attrs)
    manifest["domain"] = domain
    record, _ = store.add(code=code, manifest=manifest, status=status,
                          failed_stage="solvability" if status is Status.FAILED else None)
    return record.rid


@pytest.fixture
def populated(store: RegistryStore) -> dict[str, int]:
    rids = {name: add_theme(store, name, Status.ACCEPTED) for name in THEMES}
    rids["MazeRunner-failed"] = add_theme(store, "MazeRunner", Status.FAILED, suffix="Broken")
    rids["PrimeHunter-math"] = add_theme(store, "PrimeHunter", Status.ACCEPTED, suffix="Math", domain="math")
    return rids


def test_neighbours_by_text_record_and_status(store: RegistryStore, populated: dict[str, int]) -> None:
    memory = EnvironmentMemory(store, embedder=HashingEmbedder(64))
    assert len(memory) == len(populated)
    best = memory.accepted_neighbours("a maze with walls and an exit door", k=2)
    assert best[0].rid == populated["MazeRunner"] and best[0].status == "accepted"
    assert best[0].similarity > best[1].similarity and best[0].distance == pytest.approx(1 - best[0].similarity)
    failed = memory.failed_neighbours("maze exit", k=5)
    assert [n.rid for n in failed] == [populated["MazeRunner-failed"]] and failed[0].status == "failed"
    own = memory.neighbours(populated["PrimeHunter"], k=3)  # a record never finds itself
    assert populated["PrimeHunter"] not in [n.rid for n in own] and own[0].rid == populated["PrimeHunter-math"]
    assert [n.rid for n in memory.neighbours("prime factors", k=3, domain="math")] == [populated["PrimeHunter-math"]]
    anyone = memory.neighbours("maze exit door walls", k=2, statuses=None)
    assert {n.rid for n in anyone} == {populated["MazeRunner"], populated["MazeRunner-failed"]}
    record = memory.records(best[:1])[0]
    assert record.name == "MazeRunner" and "exit_door" in record.code


def test_vectors_are_computed_once_and_cached_in_the_store(store: RegistryStore, populated: dict[str, int]) -> None:
    first = CountingEmbedder()
    memory = EnvironmentMemory(store, embedder=first)
    memory.refresh()
    assert first.texts == len(populated)
    assert len(store.get_embeddings(memory.model_key)) == len(populated)
    second = CountingEmbedder()
    again = EnvironmentMemory(RegistryStore(store.path), embedder=second)  # another process, same store
    assert len(again) == len(populated) and second.texts == 0
    q = first.embed(["coins heads"])[0]
    assert memory.neighbours(q, k=3) == again.neighbours(q, k=3)
    first.texts = 0
    assert memory.refresh() == 0 and first.texts == 0  # nothing changed, nothing done


def test_memory_follows_writes_from_this_and_other_connections(store: RegistryStore, populated: dict[str, int]) -> None:
    memory = EnvironmentMemory(store, embedder=HashingEmbedder(64))
    assert memory.accepted_neighbours("maze walls exit door", k=1)[0].rid == populated["MazeRunner"]
    store.set_status(populated["MazeRunner"], Status.RETIRED)  # same connection
    assert populated["MazeRunner"] not in [n.rid for n in memory.accepted_neighbours("maze walls", k=10)]
    with RegistryStore(store.path) as other:  # another writer
        other.set_status(populated["MazeRunner"], Status.ACCEPTED)
        new_rid = add_theme(other, "CardSorter", Status.FAILED, suffix="Again")
    assert memory.accepted_neighbours("maze walls exit door", k=1)[0].rid == populated["MazeRunner"]
    assert memory.failed_neighbours("shuffled deck of cards", k=1)[0].rid == new_rid


def test_near_duplicates(store: RegistryStore, populated: dict[str, int]) -> None:
    memory = EnvironmentMemory(store, embedder=HashingEmbedder(64), config=MemoryConfig(duplicate_similarity=0.9))
    doc, attrs = THEMES["CoinFlipper"]
    manifest, code = env_source("CoinFlipper", doc, list(reversed(attrs)))  # same env, statements reordered
    duplicate = memory.find_duplicate(manifest, code)
    assert duplicate is not None and duplicate.rid == populated["CoinFlipper"] and duplicate.similarity >= 0.9
    other_manifest, other_code = env_source("Gardener", "Water plants in a greenhouse on schedule", ["plants", "water"])
    assert memory.find_duplicate(other_manifest, other_code) is None
    assert memory.find_duplicate(manifest, code, domain="math") is None
    assert memory.near_duplicates(populated["MazeRunner-failed"], threshold=0.5)[0].rid == populated["MazeRunner"]


def test_replay_prefers_high_scores_and_stale_records(store: RegistryStore, populated: dict[str, int]) -> None:
    memory = EnvironmentMemory(store, embedder=HashingEmbedder(64),
                               config=MemoryConfig(replay=ReplayConfig(temperature=0.5, staleness_coef=0.3)))
    store.update_stats(populated["MazeRunner"], {"regret_smoothed": 0.6})
    store.update_stats(populated["CoinFlipper"], {"regret_smoothed": 0.2})
    rids, p = memory.replay_distribution(domain="games")
    assert set(rids) == {populated[n] for n in THEMES}  # accepted, in the domain; the failed one is never replayed
    prob = dict(zip(rids, p))
    assert p.sum() == pytest.approx(1.0)
    assert prob[populated["MazeRunner"]] > prob[populated["CoinFlipper"]] > prob[populated["CardSorter"]]
    assert prob[populated["CardSorter"]] == pytest.approx(prob[populated["PrimeHunter"]])  # tied unscored
    picked = memory.sample_replay(2, seed=5, domain="games", mark=False)
    assert picked == memory.sample_replay(2, seed=5, domain="games", mark=False) and len(set(picked)) == 2
    chosen = memory.sample_replay(1, seed=0, domain="games")
    assert memory.replay_step() == 1
    assert store.get(chosen[0]).stats["replay_last_step"] == 1 and store.get(chosen[0]).stats["replay_count"] == 1
    for _ in range(3):
        memory.sample_replay(1, seed=1, domain="games")
    _, p_after = memory.replay_distribution(domain="games")
    stale = dict(zip(rids, p_after))
    assert stale[populated["CardSorter"]] >= prob[populated["CardSorter"]]  # never chosen: staler, likelier
    assert memory.record_score(populated["CardSorter"], 0.9) == pytest.approx(0.9)


def test_replay_scoring_functions() -> None:
    assert average_ranks(np.array([0.5, 0.9, 0.5, 0.1])).tolist() == [2.5, 1.0, 2.5, 4.0]
    p = rank_distribution(np.array([0.3, 0.1, 0.2]), temperature=1.0)
    h = np.array([1, 1 / 3, 1 / 2])  # 1 / rank for scores 0.3 (rank 1), 0.1 (rank 3), 0.2 (rank 2)
    assert p.tolist() == pytest.approx((h / h.sum()).tolist())
    assert rank_distribution(np.array([0.3, 0.1, 0.2]), temperature=0.1)[0] > 0.99
    assert staleness_distribution(np.zeros(4), 1.0).tolist() == [0.25] * 4
    assert staleness_distribution(np.array([0, 3, 1]), 1.0).tolist() == pytest.approx([0, 0.75, 0.25])
    scores, stale = np.array([1.0, 0.0]), np.array([0.0, 5.0])
    assert replay_distribution(scores, stale, ReplayConfig(staleness_coef=1.0)).tolist() == pytest.approx([0, 1])
    pure = replay_distribution(scores, stale, ReplayConfig(staleness_coef=0.0, temperature=1.0))
    assert pure.tolist() == pytest.approx([2 / 3, 1 / 3])
    with pytest.raises(ValueError):
        ReplayConfig(staleness_coef=2.0)


def test_empty_memory(tmp_path: Path) -> None:
    with RegistryStore(tmp_path / "empty.sqlite3") as store:
        memory = EnvironmentMemory(store, embedder=HashingEmbedder(16))
        assert len(memory) == 0 and memory.accepted_neighbours("anything") == []
        assert memory.sample_replay(3, seed=0) == [] and memory.replay_distribution() == ([], pytest.approx([]))
