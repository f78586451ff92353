"""Generation spread over Ray generator actors vs one engine on the driver: same prompts, same sampling, same run.

Starts a local Ray instance with ``--actors`` CPUs, then samples ``--prompts`` chat prompts (``--max-new-tokens``
each, greedy) first with one ``HFGenerator`` in this process (``--threads`` torch threads), then with a
``RayGeneratorPool`` of ``--actors`` actors (one CPU and one torch thread each). On a cluster the actors sit on other
machines (``ray.generator_actors`` in a self-play config); on one machine they share its cores. The figure is
completion tokens per second of wall time; both produce the same completions.

    python benchmarks/bench_ray_generation.py [--actors 2] [--prompts 32] [--max-new-tokens 64] [--model PATH]
                                              [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import time

from bench_generation import PROMPTS, Timed  # the same prompts as the single-engine generation benchmark
from saved_figures import Figure, add_save_option, keep, save_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the driver's engine")
    parser.add_argument("--model", default=None, help="model directory or .gguf (default: SmolLM2-135M-Instruct)")
    add_save_option(parser)
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
    timed = Timed(local_tokens, local_seconds, sum(len(g.completion_ids) for g in spread), ray_seconds,
                  sum(a.completion_ids == b.completion_ids for a, b in zip(spread, expected)), len(conversations))
    figures = report(timed, args.actors, args.threads)
    if args.save:
        save_run("bench_ray_generation", args.save, figures)


def report(timed: Timed, actors: int, threads: int) -> dict[str, Figure]:
    """Print the driver's engine (the baseline) beside the actors; the figures as printed."""
    figures: dict[str, Figure] = {}
    local = keep(figures, "driver_tok_per_s", timed.first_tokens / timed.first_s, 1, " tok/s")
    spread = keep(figures, "ray_tok_per_s", timed.second_tokens / timed.second_s, 1, " tok/s")
    speedup = keep(figures, "speedup", timed.second_tokens / timed.second_s / (timed.first_tokens / timed.first_s),
                   2, "×")
    print(f"driver engine ({threads} thread): {timed.first_tokens} tokens in {timed.first_s:.2f} s = {local}")
    print(f"{actors} Ray generator actors: {timed.second_tokens} tokens in {timed.second_s:.2f} s = {spread} "
          f"({speedup}; same completions: {timed.same}/{timed.prompts})")
    return figures

if __name__ == "__main__":
    main()
