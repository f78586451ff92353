"""Environment-memory benchmark: k-nearest-neighbour retrieval latency at 1k / 10k / 100k records.

Each size reports the memory's index (``VectorIndex``: exact below 16,384 rows, IVF above) next to brute-force
numpy (one matrix-vector product + ``argpartition``) on the same matrix and queries in the same run, with the
ratio, the index's recall@k against the exact answer and the "sim gap" (mean cosine similarity of the exact top-k
minus that of the index's top-k: how much worse the misses are); also a filtered query (accepted records of one
domain, ~1/9 of the rows), where brute force has to mask. Target: p50 <= 20 ms at 100k on 2 cores, and faster than numpy.

Vectors: 384-d unit vectors drawn around 2,000 random centres (real sentence embeddings are clustered too; a
uniform random cloud would be the worst case for any IVF index). ``--real N`` adds a run on N wiki summaries
embedded with the packaged MiniLM, forcing IVF, to report recall on real embeddings (slow: embedding ~N/100 s).

    python benchmarks/bench_memory.py [--sizes 1000 10000 100000] [--queries 200] [--k 10] [--real 0] [--save]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from saved_figures import Figure, add_save_option, save_run

from spade_core.memory.index import IndexConfig, VectorIndex

DIM = 384
STATUSES = ("accepted", "failed", "trivial")
DOMAINS = ("math", "games", "code")


def clustered(n: int, seed: int, centres: int = 2000, spread: float = 0.6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((centres, DIM)).astype(np.float32)
    x = c[rng.integers(0, centres, n)] + spread * rng.standard_normal((n, DIM)).astype(np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def brute_force(x: np.ndarray, q: np.ndarray, k: int, mask: np.ndarray | None = None) -> np.ndarray:
    scores = x @ q
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


def percentiles(samples: list[float]) -> tuple[float, float]:
    s = np.sort(np.asarray(samples)) * 1000
    return float(np.percentile(s, 50)), float(np.percentile(s, 95))


def bench_size(x: np.ndarray, queries: np.ndarray, k: int, config: IndexConfig, label: str) -> tuple[float, float]:
    n = len(x)
    statuses = [STATUSES[i % 3] for i in range(n)]
    domains = [DOMAINS[(i // 3) % 3] for i in range(n)]
    mask = np.array([s == "accepted" and d == "math" for s, d in zip(statuses, domains)])
    t = time.perf_counter()
    index = VectorIndex(DIM, config)
    index.add(list(range(n)), x, statuses, domains)
    build = time.perf_counter() - t
    for q in queries[:5]:  # warm caches (filter masks, BLAS threads)
        index.search(q, k)
        index.search(q, k, statuses=["accepted"], domains=["math"])
        brute_force(x, q, k)
    rows = []
    for name, filt in (("all", False), ("filtered", True)):
        ours, theirs, recall, gap = [], [], [], []
        for q in queries:
            t = time.perf_counter()
            hits = (index.search(q, k, statuses=["accepted"], domains=["math"]) if filt else index.search(q, k))
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            exact = brute_force(x, q, k, mask if filt else None)
            theirs.append(time.perf_counter() - t)
            recall.append(len({r for r, _ in hits} & set(exact.tolist())) / k)
            gap.append(float(np.mean(x[exact] @ q)) - float(np.mean([s for _, s in hits])))
        (o50, o95), (b50, b95) = percentiles(ours), percentiles(theirs)
        rows.append((name, o50, o95, b50, b95, b50 / o50, float(np.mean(recall)), float(np.mean(gap))))
    mode = f"IVF nlist={index.nlist} nprobe={index.nprobe}" if index.is_ivf else "exact"
    print(f"\n{label}: {n:,} records, {mode}, build {build:.2f} s")
    recall_label = f"recall@{k}"
    header = f"{'query':<9} {'index p50':>10} {'p95':>8} {'numpy p50':>10} {'p95':>8} {'speed-up':>9}"
    print(f"  {header} {recall_label:>10} {'sim gap':>8}")
    for name, o50, o95, b50, b95, ratio, rec, gap in rows:
        print(f"  {name:<9} {o50:>8.3f}ms {o95:>6.3f}ms {b50:>8.3f}ms {b95:>6.3f}ms {ratio:>8.1f}x {rec:>10.3f}"
              f" {gap:>8.4f}")
    return rows[0][1], rows[0][3]  # unfiltered query p50 (index, numpy), ms


def real_embeddings(n: int) -> np.ndarray:
    from spade_core.corpora.wiki import WikiOfflineCorpus
    from spade_core.memory.embedding import MiniLMEmbedder

    corpus = WikiOfflineCorpus()
    docs = corpus.sample(min(n, len(corpus)), seed=0)
    t = time.perf_counter()
    vectors = MiniLMEmbedder(batch_size=64).embed([f"{d.title}. {d.text}" for d in docs])
    print(f"\nembedded {len(docs):,} wiki summaries with MiniLM in {time.perf_counter() - t:.1f} s")
    return vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--real", type=int, default=0, help="also run on N MiniLM-embedded wiki summaries")
    add_save_option(parser)
    args = parser.parse_args()
    figures = {}
    print(f"kNN retrieval, k={args.k}, {args.queries} queries per size, 384-d float32")
    pool = clustered(max(args.sizes) + args.queries, seed=0)
    queries, data = pool[: args.queries], pool[args.queries:]
    for n in args.sizes:
        index_p50, numpy_p50 = bench_size(data[:n], queries, args.k, IndexConfig(), "synthetic clustered")
        figures[f"index_p50_ms_{n}"] = Figure(index_p50, decimals=1, unit=" ms")
        figures[f"numpy_p50_ms_{n}"] = Figure(numpy_p50, decimals=1, unit=" ms")
    if args.real:
        vectors = real_embeddings(args.real + args.queries)
        bench_size(vectors[args.queries:], vectors[: args.queries], args.k,
                   IndexConfig(ivf_min_size=1000), "MiniLM wiki summaries (IVF forced)")
    if args.save:
        save_run("bench_memory", args.save, figures)


if __name__ == "__main__":
    main()
