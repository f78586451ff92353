"""SPADE's GPU check: sampling and training speed of a realistic model shape on one CUDA GPU, in one table.

It builds a random-weight Qwen2-shaped causal LM locally (no download; ``--shape 0.5b`` is Qwen2.5-0.5B's shape,
``1.5b`` Qwen2.5-1.5B's), then measures on the same prompts:

- sampling tokens/s of SPADE's ``HFGenerator`` (the reference trainer's own sampler: shared-prefix prefill, growing
  KV cache, bf16 autocast) against transformers' ``generate`` (same model, same autocast, same prompts and lengths);
- one reference-trainer update (bf16 autocast over fp32 master weights) on those samples, with its ratio check:
  the first update is on-policy, so the trainer's logprobs must match the sampler's (``sampler_logprob_abs_diff``
  within ``weight_sync.DEFAULT_TOLERANCE``) and the importance ratio must be 1 (``ratio_mean``);
- MFU of both: model FLOPs (2 N per sampled token; 6 N per trained token, N the parameters that multiply every
  token: all but the input embedding, plus the head when tied) over the GPU's dense bf16 peak.

``--tiny`` runs the same code on a 2-layer model on the CPU in seconds (what CI runs); MFU then needs
``--peak-tflops``. Exit status 0 only if the ratio check passes.

    python scripts/gpu_check.py [--shape 0.5b|1.5b] [--prompts 32] [--max-new-tokens 128] [--json OUT]
    python scripts/gpu_check.py --tiny
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHAPES: dict[str, dict[str, Any]] = {
    # hidden, layers, heads, kv heads, MLP, vocab: the published Qwen2.5 shapes, weights random
    "0.5b": {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
             "intermediate_size": 4864, "vocab_size": 151936, "tie_word_embeddings": True},
    "1.5b": {"hidden_size": 1536, "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2,
             "intermediate_size": 8960, "vocab_size": 151936, "tie_word_embeddings": True},
    "tiny": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "intermediate_size": 128, "vocab_size": 512, "tie_word_embeddings": True},
}

PEAK_BF16_TFLOPS = {  # dense bf16 tensor-core peak by device name (the first that matches, most specific first)
    "H200": 989.4, "H100 PCIe": 756.0, "H100": 989.4, "H800": 989.4, "GH200": 989.4, "B200": 2250.0,
    "A100": 312.0, "A800": 312.0, "L40S": 362.1, "L40": 181.0, "L4": 121.0, "A10G": 70.0, "A10": 125.0,
    "RTX 4090": 165.2, "RTX 6000 Ada": 364.2, "A6000": 154.8,
}


@dataclass
class Row:
    figure: str
    value: str
    baseline: str = ""
    note: str = ""


def peak_tflops(device_name: str, override: float | None) -> float | None:
    if override is not None:
        return override
    return next((v for k, v in PEAK_BF16_TFLOPS.items() if k in device_name), None)


def matmul_parameters(model: Any) -> int:
    """Parameters that take part in a matrix product for every token: all but the input embedding; a tied head
    counts once more (the same matrix multiplies every hidden state)."""
    embedding = model.get_input_embeddings().weight
    total = sum(p.numel() for p in model.parameters())
    tied = model.get_output_embeddings() is not None and model.get_output_embeddings().weight is embedding
    return total - embedding.numel() + (embedding.numel() if tied else 0)


def build_model(shape: str, device: str, tokenizer: Any, seed: int) -> Any:
    import torch
    from transformers import AutoModelForCausalLM, Qwen2Config

    config = Qwen2Config(**SHAPES[shape], max_position_embeddings=4096, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(seed)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)  # fp32 master weights
    return model.eval()


def prompts_for(tokenizer: Any, count: int, seed: int) -> list[list[int]]:
    """Chat prompts of a few dozen tokens each, different from each other."""
    rng = random.Random(seed)
    topics = ["a river", "prime numbers", "a chess opening", "the water cycle", "a recipe", "a short trip",
              "a robot", "the moon", "a ledger", "a puzzle"]
    out = []
    for i in range(count):
        text = f"Write a detailed story about {rng.choice(topics)} and {rng.choice(topics)} (variant {i})."
        out.append(list(tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=True,
                                                      add_generation_prompt=True, return_dict=False)))
    return out


def synchronize(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def hf_generate_tokens_per_s(model: Any, prompts: list[list[int]], max_new_tokens: int, pad_id: int,
                             device: str, autocast: Any) -> tuple[float, int, float]:
    """transformers' ``generate`` on the prompts (left-padded, one batch), every sequence forced to
    ``max_new_tokens``; returns (tokens/s, tokens, seconds)."""
    import torch

    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad_id] * (width - len(p)) + p for p in prompts], device=device)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
    synchronize(device)
    started = time.perf_counter()
    with torch.no_grad(), autocast():
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_new_tokens,
                             min_new_tokens=max_new_tokens, do_sample=True, temperature=1.0, top_k=0, top_p=1.0,
                             pad_token_id=pad_id)
    synchronize(device)
    seconds = time.perf_counter() - started
    tokens = int(out.shape[0] * (out.shape[1] - width))
    return tokens / seconds, tokens, seconds


def run(args: argparse.Namespace) -> tuple[list[Row], dict[str, Any], bool]:
    import torch
    import transformers

    from spade_core.models.base import SamplingParams
    from spade_core.models.tiny import build_tiny_model
    from spade_core.rollout.trajectory import generation_trajectory
    from spade_core.training.weight_sync import DEFAULT_TOLERANCE
    from spade_trainers.reference.backend import build_reference_trainer

    device = "cpu" if args.tiny else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("no CUDA GPU visible: run on a GPU machine, or pass --tiny for the CPU check")
    shape = "tiny" if args.tiny else args.shape
    with tempfile.TemporaryDirectory(prefix="spade-gpu-check-") as tmp:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(build_tiny_model(Path(tmp) / "tokenizer"))  # BPE + chat template
    started = time.perf_counter()
    model = build_model(shape, device, tokenizer, args.seed)
    build_seconds = time.perf_counter() - started
    n_matmul = matmul_parameters(model)
    n_total = sum(p.numel() for p in model.parameters())
    trainer = build_reference_trainer(
        model, tokenizer, precision="auto", device=device, learning_rate=1e-6, micro_batch_size=args.micro_batch,
        max_completion_tokens=args.max_new_tokens, generator_max_batch_size=args.prompts, seed=args.seed)
    generator = trainer.generator
    dtype = trainer.autocast_dtype  # the trainer's autocast (bf16 on CUDA): both samplers run under it

    def autocast() -> Any:
        return torch.autocast(device_type=device, dtype=dtype) if dtype is not None else contextlib.nullcontext()

    prompts = prompts_for(tokenizer, args.prompts, args.seed)
    params = SamplingParams(max_new_tokens=args.max_new_tokens, temperature=1.0, seed=args.seed)

    # warm-up: kernels, allocator, autotuning
    generator.generate(prompts[:2], SamplingParams(max_new_tokens=4, temperature=1.0, seed=1))
    hf_generate_tokens_per_s(model, prompts[:2], 4, generator.pad_token_id, device, autocast)

    synchronize(device)
    t0 = time.perf_counter()
    generations = generator.generate(prompts, params)
    synchronize(device)
    spade_seconds = time.perf_counter() - t0
    spade_tokens = sum(len(g.completion_ids) for g in generations)
    spade_tps = spade_tokens / spade_seconds
    hf_tps, hf_tokens, hf_seconds = hf_generate_tokens_per_s(model, prompts, args.max_new_tokens,
                                                             generator.pad_token_id, device, autocast)

    trajectories = [generation_trajectory(g, role="agent", group_id=f"g{i % 4}", episode_id=f"e{i}",
                                          reward=float(i % 2)) for i, g in enumerate(generations)
                    if g.completion_ids]
    advantages = [1.0 if t.reward > 0 else -1.0 for t in trajectories]
    synchronize(device)
    t0 = time.perf_counter()
    update = trainer.update(trajectories, advantages)
    synchronize(device)
    train_seconds = time.perf_counter() - t0
    train_tokens = sum(len(t.token_ids) for t in trajectories)
    peak_mem = torch.cuda.max_memory_allocated() / 2**30 if device == "cuda" else None

    diff = float(update["sampler_logprob_abs_diff"])
    ratio = float(update["ratio_mean"])
    ratio_ok = diff <= DEFAULT_TOLERANCE and abs(ratio - 1.0) <= DEFAULT_TOLERANCE
    name = torch.cuda.get_device_name() if device == "cuda" else "CPU"
    peak = peak_tflops(name, args.peak_tflops)

    def mfu(flops_per_s: float) -> str:
        return f"{100 * flops_per_s / (peak * 1e12):.1f} %" if peak else "n/a (pass --peak-tflops)"

    sample_flops = 2 * n_matmul * spade_tps
    train_flops = 6 * n_matmul * train_tokens / train_seconds
    rows = [
        Row("device", name, note=f"torch {torch.__version__}, transformers {transformers.__version__}"),
        Row("model", f"Qwen2 shape {shape}, {_count(n_total)} params",
            note=f"random weights, built in {build_seconds:.1f} s; {_count(n_matmul)} in matmuls per token"),
        Row("sampling tokens/s: HFGenerator vs transformers generate", f"{spade_tps:,.0f}", f"{hf_tps:,.0f}",
            f"{spade_tps / hf_tps:.2f}x; {args.prompts} prompts x {args.max_new_tokens} new tokens "
            f"({spade_tokens} vs {hf_tokens} tokens, {spade_seconds:.2f} s vs {hf_seconds:.2f} s)"),
        Row("sampling MFU (HFGenerator)", mfu(sample_flops), mfu(2 * n_matmul * hf_tps),
            "2 N FLOPs per sampled token; baseline: transformers generate"),
        Row("reference-trainer update", f"{train_seconds:.2f} s",
            note=f"{len(trajectories)} sequences, {train_tokens} tokens, "
                 f"{'bf16 autocast' if dtype is not None else 'fp32'}, "
                 f"{int(update['optimizer_steps'])} optimiser step(s), loss {float(update['loss']):.4f}"),
        Row("update MFU", mfu(train_flops), note="6 N FLOPs per sequence token"),
        Row("ratio check (on-policy first update)", "PASS" if ratio_ok else "FAIL",
            note=f"sampler vs trainer |dlogprob| {diff:.4f} (<= {DEFAULT_TOLERANCE}), ratio_mean {ratio:.4f}, "
                 f"ratio_max {float(update['ratio_max']):.4f}"),
    ]
    if peak_mem is not None:
        rows.append(Row("peak GPU memory", f"{peak_mem:.1f} GiB"))
    figures = {
        "device": name, "shape": shape, "params": n_total, "matmul_params": n_matmul,
        "hf_generator_tokens_per_s": spade_tps, "transformers_generate_tokens_per_s": hf_tps,
        "speedup": spade_tps / hf_tps, "update_seconds": train_seconds, "update_tokens": train_tokens,
        "sampling_mfu": sample_flops / (peak * 1e12) if peak else None,
        "update_mfu": train_flops / (peak * 1e12) if peak else None,
        "sampler_logprob_abs_diff": diff, "ratio_mean": ratio, "ratio_check": ratio_ok,
        "peak_gpu_memory_gib": peak_mem,
    }
    return rows, figures, ratio_ok


def _count(n: int) -> str:
    return f"{n / 1e9:.3f} B" if n >= 1e8 else f"{n / 1e6:.3f} M"


def table(rows: list[Row]) -> str:
    head = Row("figure", "SPADE", "baseline", "note")
    widths = [max(len(getattr(r, f)) for r in [head, *rows]) for f in ("figure", "value", "baseline")]
    lines = []
    for r in [head, *rows]:
        lines.append(f"{r.figure:<{widths[0]}}  {r.value:>{widths[1]}}  {r.baseline:>{widths[2]}}  {r.note}".rstrip())
    lines.insert(1, "-" * max(len(line) for line in lines))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="a 2-layer model on the CPU (the CI check of this script)")
    parser.add_argument("--shape", choices=["0.5b", "1.5b"], default="0.5b")
    parser.add_argument("--prompts", type=int, default=None, help="default: 32 (4 with --tiny)")
    parser.add_argument("--max-new-tokens", type=int, default=None, help="default: 128 (8 with --tiny)")
    parser.add_argument("--micro-batch", type=int, default=8)
    parser.add_argument("--peak-tflops", type=float, default=None, help="dense bf16 peak, if the GPU is not known")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", dest="json_out", type=Path, default=None)
    args = parser.parse_args(argv)
    args.prompts = args.prompts or (4 if args.tiny else 32)
    args.max_new_tokens = args.max_new_tokens or (8 if args.tiny else 128)
    started = time.perf_counter()
    rows, figures, ok = run(args)
    rows.append(Row("wall time of this check", f"{time.perf_counter() - started:.0f} s", note="target <= 300 s"))
    print(table(rows))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
