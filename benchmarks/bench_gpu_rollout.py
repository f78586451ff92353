"""GPU rollout throughput: the colocated vLLM engine vs the reference backend's HF generate, same prompts, same run;
then the weight-push check (vLLM's logprobs against the trainer's) and a self-test that the check catches a push that
loads only embeddings and norms. Needs one CUDA GPU and the ``gpu`` extra. Target: vLLM >= 10x HF tokens/s.

    python benchmarks/bench_gpu_rollout.py [--model DIR_OR_GGUF] [--prompts 64] [--max-new-tokens 256] [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from saved_figures import Figure, add_save_option, keep, save_run

from spade_core.training.weight_sync import LogprobAgreement


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model directory or .gguf (default: embedded SmolLM2-135M)")
    parser.add_argument("--prompts", type=int, default=64)
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.3)
    parser.add_argument("--json", dest="json_out", default=None, help="also write the figures to this JSON file")
    add_save_option(parser)
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("error: no CUDA GPU visible; this benchmark compares GPU engines", file=sys.stderr)
        return 2
    from spade_core.models.base import SamplingParams
    from spade_core.models.hf_generator import HFGenerator
    from spade_core.models.loading import load_model
    from spade_core.models.vllm_backend import VLLMBackend
    from spade_core.training.weight_sync import compare_logprobs

    loaded = load_model(args.model, device="cuda")
    trainer_model = loaded.model.to(device="cuda", dtype=torch.float32)  # fp32 master weights, bf16 autocast
    hf = HFGenerator(trainer_model, loaded.tokenizer, max_batch_size=args.prompts, autocast_dtype=torch.bfloat16)
    t = time.perf_counter()
    # the engine settings of configs/gpu-smoke.yaml, so the self-play run after this one reuses vLLM's compile cache
    engine = VLLMBackend(loaded.directory, colocate=True, dtype="bfloat16",
                         gpu_memory_utilization=args.gpu_memory_utilization, max_model_len=8192)
    print(f"vLLM engine started in {time.perf_counter() - t:.1f} s")

    topics = ["a river", "prime numbers", "a chess opening", "the water cycle", "a recipe", "a short trip",
              "a robot", "the moon"]
    prompts = [hf.encode_chat([{"role": "user", "content": f"Write a detailed story about {topics[i % len(topics)]}"
                                                           f" (variant {i})."}]) for i in range(args.prompts)]
    params = SamplingParams(max_new_tokens=args.max_new_tokens, temperature=1.0, seed=0)
    engine.generate(prompts[:4], SamplingParams(max_new_tokens=8))  # warm-up (CUDA graphs, allocator)
    hf.generate(prompts[:4], SamplingParams(max_new_tokens=8))
    timed: dict[str, tuple[int, float]] = {}
    for name, backend in (("hf", hf), ("vllm", engine)):
        torch.cuda.synchronize()
        t = time.perf_counter()
        out = backend.generate(prompts, params)
        torch.cuda.synchronize()
        timed[name] = (sum(len(g.completion_ids) for g in out), time.perf_counter() - t)
        if name == "vllm":
            sample = out[:8]
    figures = report_throughput(timed)

    # The weight-push check on vLLM's own samples: the trainer's logprobs vs the engine's after a push.
    probe = [g.prompt_ids + g.completion_ids for g in sample]
    before = hf.score(probe)
    with torch.no_grad():  # a real change of the policy, large enough to measure: one random step on every matrix
        gen = torch.Generator(device="cuda").manual_seed(0)
        for param in trainer_model.parameters():
            if param.dim() == 2:
                param.add_(torch.randn(param.shape, generator=gen, device="cuda") * 2e-3 * param.abs().mean())
    state = {k: v.detach() for k, v in trainer_model.state_dict().items()}
    partial = {k: v for k, v in state.items() if "embed" in k or "norm" in k}
    engine.sync_weights(partial)  # the engine keeps its old attention and MLP weights: a stale policy
    stale = compare_logprobs(engine.score(probe), hf.score(probe), before)
    engine.sleep()  # as during a trainer step: weights and KV cache released, then a full push wakes them
    engine.sync_weights(state)
    full = compare_logprobs(engine.score(probe), hf.score(probe), before)
    figures |= report_push(full, stale)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump({key: figure.value for key, figure in figures.items()}, handle, indent=2)
    if args.save:
        save_run("bench_gpu_rollout", args.save, figures)
    return 0 if full.ok and not stale.ok else 1


def report_throughput(timed: dict[str, tuple[int, float]]) -> dict[str, Figure]:
    """Print completion tokens and seconds of HF generate (the baseline) and vLLM; the figures as printed."""
    figures: dict[str, Figure] = {}
    for name, (tokens, seconds) in timed.items():
        rate = keep(figures, f"{name}_tokens_per_s", tokens / seconds, 1, " tokens/s")
        print(f"  {name:>4}: {tokens:6d} tokens in {seconds:6.2f} s = {rate:>18}")
    ratio = figures["vllm_tokens_per_s"].value / figures["hf_tokens_per_s"].value
    print(f"  vLLM / HF generate: {keep(figures, 'speedup', ratio, 1, '×')} (target >= 10×)")
    return figures


def report_push(full: LogprobAgreement, stale: LogprobAgreement) -> dict[str, Figure]:
    """Print the logprob check after a full push and after a partial one (which it must catch); the figures as
    printed."""
    figures: dict[str, Figure] = {}
    print(f"logprob check after a full push:     mean |diff| "
          f"{keep(figures, 'full_push_mean_abs_diff', full.mean_abs_diff, 4)} (max {full.max_abs_diff:.3f}) "
          f"over {full.tokens} tokens; update moved the policy {keep(figures, 'update_shift', full.update_shift, 4)}: "
          f"{'OK' if full.ok else 'MISMATCH'}")
    print(f"logprob check after a partial push:  mean |diff| "
          f"{keep(figures, 'partial_push_mean_abs_diff', stale.mean_abs_diff, 4)}: "
          f"{'caught' if not stale.ok else 'NOT CAUGHT'} (embeddings and norms only)")
    return figures


if __name__ == "__main__":
    sys.exit(main())
