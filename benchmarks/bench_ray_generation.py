"""Generation spread over Ray generator actors vs one engine on the driver: same prompts, same sampling, same run.

Starts a local Ray instance with ``--actors`` CPUs, then samples ``--prompts`` chat prompts (``--max-new-tokens``
each, greedy) first with one ``HFGenerator`` in this process (``--threads`` torch threads), then with a
``RayGeneratorPool`` of ``--actors`` actors (one CPU and one torch thread each). On a cluster the actors sit on other
machines (``ray.generator_actors`` in a self-play config); on one machine they share its cores. The figure is
completion tokens per second of wall time; both produce the same completions.

    python benchmarks/bench_ray_generation.py [--actors 2] [--prompts 32] [--max-new-tokens 64] [--model PATH]
"""

from __future__ import annotations

import argparse
import time

from bench_generation import PROMPTS  # the same prompts as the single-engine generation benchmark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the driver's engine")
    parser.add_argument("--model", default=None, help="model directory or .gguf (default: SmolLM2-135M-Instruct)")
    args = parser.parse_args()

    import torch

    from spade_core.models.base import SamplingParams
    from spade_core.models.hf_generator import HFGenerator
    from spade_core.models.loading import resolve_model_dir
    from spade_core.scale.ray_generation import RayGeneratorPool
    from spade_core.scale.ray_runtime import RayRuntime

    torch.set_num_threads(args.threads)
    directory = resolve_model_dir(args.model)
    conversations = [[{"role": "user", "content": f"{PROMPTS[i % len(PROMPTS)]} (variant {i})"}]
                     for i in range(args.prompts)]
    params = SamplingParams(max_new_tokens=args.max_new_tokens, temperature=0.0)
    local = HFGenerator.from_pretrained(directory, device="cpu", max_batch_size=args.prompts)
    local.chat(conversations[:2], SamplingParams(max_new_tokens=4, temperature=0.0))  # warm-up
    t = time.perf_counter()
    expected = local.chat(conversations, params)
    local_seconds = time.perf_counter() - t
    local_tokens = sum(len(g.completion_ids) for g in expected)
    del local

    runtime = RayRuntime.start(num_cpus=args.actors)
    try:
        t = time.perf_counter()
        pool = RayGeneratorPool(str(directory), num_actors=args.actors, actor_cpus=1.0,
                                max_batch_size=args.prompts, timeout_s=600)
        print(f"{args.actors} generator actors ready in {time.perf_counter() - t:.1f} s")
        pool.chat(conversations[:2 * args.actors], SamplingParams(max_new_tokens=4, temperature=0.0))  # warm-up
        t = time.perf_counter()
        spread = pool.chat(conversations, params)
        ray_seconds = time.perf_counter() - t
        pool.shutdown()
    finally:
        runtime.shutdown()
    ray_tokens = sum(len(g.completion_ids) for g in spread)
    same = [g.completion_ids for g in spread] == [g.completion_ids for g in expected]
    local_rate, ray_rate = local_tokens / local_seconds, ray_tokens / ray_seconds
    print(f"driver engine ({args.threads} thread): {local_tokens} tokens in {local_seconds:.2f} s = "
          f"{local_rate:.1f} tok/s")
    print(f"{args.actors} Ray generator actors: {ray_tokens} tokens in {ray_seconds:.2f} s = {ray_rate:.1f} tok/s "
          f"({ray_rate / local_rate:.2f}x; same completions: {same})")


if __name__ == "__main__":
    main()
