"""The in-memory kNN index: exact below the IVF threshold, IVF above; filters, exclusions, growth, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.memory.errors import EmbeddingError
from spade_core.memory.index import IndexConfig, VectorIndex

DIM = 32
STATUSES = ["accepted", "failed", "trivial"]
DOMAINS = ["math", "games", "code"]


def clustered(n: int, seed: int, clusters: int = 40) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, DIM))
    x = centres[rng.integers(0, clusters, n)] + 0.35 * rng.standard_normal((n, DIM))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def filled(n: int, config: IndexConfig, seed: int = 0) -> tuple[VectorIndex, np.ndarray]:
    x = clustered(n, seed)
    index = VectorIndex(DIM, config)
    index.add(list(range(1, n + 1)), x, [STATUSES[i % 3] for i in range(n)], [DOMAINS[i % 2] for i in range(n)])
    return index, x


def brute(x: np.ndarray, q: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[int]:
    scores = x @ (q / np.linalg.norm(q))
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    order = np.lexsort((np.arange(len(x)), -scores))[:k]
    return [int(i) + 1 for i in order if np.isfinite(scores[i])]


def test_exact_mode_matches_brute_force_with_filters_and_exclusions() -> None:
    index, x = filled(300, IndexConfig())
    assert not index.is_ivf and len(index) == 300
    q = x[10] + 0.1
    assert [r for r, _ in index.search(q, 5)] == brute(x, q, 5)
    allowed = np.array([STATUSES[i % 3] == "failed" and DOMAINS[i % 2] == "games" for i in range(300)])
    hits = index.search(q, 5, statuses=["failed"], domains=["games"])
    assert [r for r, _ in hits] == brute(x, q, 5, allowed)
    assert all(index.attributes(r) == ("failed", "games") for r, _ in hits)
    top = index.search(x[10], 3)
    assert top[0][0] == 11 and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert 11 not in [r for r, _ in index.search(x[10], 3, exclude={11})]
    assert index.search(q, 5, statuses=["retired"]) == [] and index.search(q, 0) == []


def test_ivf_recall_and_filters_on_clustered_data() -> None:
    config = IndexConfig(ivf_min_size=1000, exact_filter_max=50)
    index, x = filled(4000, config)
    assert index.is_ivf and index.nlist > 16
    queries = clustered(60, seed=99)
    recall = np.mean([
        len({r for r, _ in index.search(q, 10)} & {r for r, _ in index.search(q, 10, exact=True)}) / 10
        for q in queries
    ])
    assert recall >= 0.95
    for q in queries[:10]:
        hits = index.search(q, 10, statuses=["trivial"], domains=["games"])
        assert len(hits) == 10 and all(index.attributes(r) == ("trivial", "games") for r, _ in hits)
        sims = [s for _, s in hits]
        assert sims == sorted(sims, reverse=True)


@given(st.integers(0, 10_000), st.sampled_from([None, ["accepted"], ["failed", "trivial"]]),
       st.sampled_from([None, ["math"], ["games", "code"]]), st.integers(1, 15))
def test_probing_every_list_equals_exact_search(seed: int, statuses: list[str] | None, domains: list[str] | None,
                                                k: int) -> None:
    index, _ = filled(700, IndexConfig(ivf_min_size=200, nlist=8, nprobe=8, exact_filter_max=0), seed=seed % 7)
    q = np.random.default_rng(seed).standard_normal(DIM)
    exclude = {int(r) for r in np.random.default_rng(seed).integers(1, 700, 5)}
    got = index.search(q, k, statuses=statuses, domains=domains, exclude=exclude)
    want = index.search(q, k, statuses=statuses, domains=domains, exclude=exclude, exact=True)
    assert [r for r, _ in got] == [r for r, _ in want]


def test_growth_tail_status_changes_and_retraining() -> None:
    config = IndexConfig(ivf_min_size=500, min_tail=100, max_tail_fraction=0.1, retrain_growth=2.0)
    index, x = filled(600, config)
    trained_lists = index.nlist
    extra = clustered(50, seed=5)
    index.add(list(range(10_001, 10_051)), extra, ["accepted"] * 50, ["math"] * 50)
    assert index._n_base == 600  # still in the unfiled tail, yet searchable
    assert index.search(extra[7], 1)[0][0] == 10_008
    index.set_attributes(10_008, status="retired")
    assert 10_008 not in [r for r, _ in index.search(extra[7], 3, statuses=["accepted"])]
    more = clustered(700, seed=6)
    index.add(list(range(20_001, 20_701)), more, ["accepted"] * 700, ["games"] * 700)
    assert len(index) == 1350 and index._n_base == 1350 and index.nlist > trained_lists  # retrained
    assert index.search(more[3], 1)[0][0] == 20_004 and index.vector(20_004) == pytest.approx(more[3], abs=1e-6)


def test_duplicates_are_skipped_and_inputs_checked() -> None:
    index = VectorIndex(DIM)
    x = clustered(3, seed=1)
    assert index.add([1, 2, 2], x, ["accepted"] * 3, ["math"] * 3) == 2
    assert index.add([1], x[:1], ["accepted"], ["math"]) == 0 and len(index) == 2
    with pytest.raises(EmbeddingError, match="one vector, status and domain"):
        index.add([5, 6], x[:1], ["accepted"], ["math"])
    with pytest.raises(EmbeddingError, match="dimension 3"):
        index.search(np.ones(3), 1)


def test_same_seed_same_index() -> None:
    a, _ = filled(1500, IndexConfig(ivf_min_size=1000, seed=3))
    b, _ = filled(1500, IndexConfig(ivf_min_size=1000, seed=3))
    q = clustered(1, seed=42)[0]
    assert a.search(q, 10) == b.search(q, 10)
