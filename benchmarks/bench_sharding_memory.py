"""Training-state memory per rank: FSDP-sharded vs replicated reference trainer, same model, same batch, same run.

Launches ``--ranks`` processes (torchrun, gloo on CPU) twice: once with ``sharding="replicate"`` and once with
``sharding="fsdp"``. Each rank builds the trainer on the embedded SmolLM2-135M-Instruct (or ``--model``), takes one
update on a fixed batch of synthetic trajectories, and reports the bytes it holds of trainable weights, gradients
(measured right after backward, before the step frees them) and AdamW moments, plus its peak RSS. The figure is the
sharded training state per rank over the replicated one (expected about 1/ranks).

    python benchmarks/bench_sharding_memory.py [--ranks 2] [--model PATH] [--sequences 8] [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from saved_figures import Figure, add_save_option, keep, save_run


def _local_bytes(tensors: list) -> int:
    from torch.distributed.tensor import DTensor

    total = 0
    for t in tensors:
        local = t.to_local() if isinstance(t, DTensor) else t
        total += local.numel() * local.element_size()
    return total


def _rank(model: str, sharding: str, sequences: int, out: str) -> None:
    """One rank: build, one update, report its bytes (run under torchrun)."""
    import random

    import torch

    from spade_core.models.hf_generator import HFGenerator
    from spade_core.models.loading import load_model, resolve_model_dir
    from spade_core.rollout.trajectory import Trajectory
    from spade_core.training.data_parallel import DataParallel, DataParallelDriver, serve
    from spade_trainers.reference.backend import ReferenceTrainer
    from spade_trainers.reference.config import ReferenceTrainerConfig

    torch.set_num_threads(1)
    group = DataParallel.from_env()
    directory = resolve_model_dir(model or None)
    # as the self-play loop does: with FSDP every rank starts on the meta device and its shards stream from the files
    loaded = load_model(str(directory), device="cpu", weights=sharding != "fsdp")
    engine = HFGenerator.from_pretrained(directory, device="cpu") if sharding == "fsdp" else None
    config = ReferenceTrainerConfig(device="cpu", sharding=sharding, micro_batch_size=2, max_completion_tokens=32,
                                    learning_rate=1e-5)
    trainer = ReferenceTrainer(loaded.model, loaded.tokenizer, config, generator=engine, data_parallel=group)
    seen: dict[str, int] = {"grads": 0}

    def record(_optimizer, _args, _kwargs) -> None:  # just before each optimiser step: gradients are all there
        seen["grads"] = max(seen["grads"], _local_bytes([p.grad for p in trainer.parameters if p.grad is not None]))

    trainer.optimizer.register_step_pre_hook(record)
    if group.is_driver:
        rng = random.Random(0)
        vocab = int(loaded.model.config.vocab_size)
        batch = []
        for i in range(sequences):
            prompt = [rng.randrange(vocab) for _ in range(48)]
            completion = [rng.randrange(vocab) for _ in range(32)]
            batch.append(Trajectory(env_id="bench", role="agent", group_id=f"g{i % 2}", episode_id=f"e{i}",
                                    token_ids=prompt + completion, loss_mask=[0] * 48 + [1] * 32,
                                    logprobs=[0.0] * 48 + [-5.0] * 32, prompt_length=48))
        driver = DataParallelDriver(trainer, group)
        driver.update(batch, [1.0 if i % 2 else -1.0 for i in range(sequences)])
        driver.close()
    else:
        serve(trainer, group)
    state = [v for s in trainer.optimizer.state.values() for v in s.values() if hasattr(v, "numel") and v.dim() > 0]
    report = {"rank": group.rank, "weights": _local_bytes(trainer.parameters), "grads": seen["grads"],
              "optimizer": _local_bytes(state), "max_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    Path(out, f"{sharding}-rank{group.rank}.json").write_text(json.dumps(report))


def _launch(ranks: int, model: str, sharding: str, sequences: int, out: str) -> list[dict]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks),
               __file__, "--rank-of", sharding, "--model", model, "--sequences", str(sequences), "--out", out]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{sharding} run failed:\n{result.stderr[-3000:]}")
    return [json.loads(Path(out, f"{sharding}-rank{r}.json").read_text()) for r in range(ranks)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--model", default="", help="model directory or .gguf (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--sequences", type=int, default=8)
    parser.add_argument("--rank-of", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    add_save_option(parser)
    args = parser.parse_args()
    if args.rank_of:
        _rank(args.model, args.rank_of, args.sequences, args.out)
        return
    with tempfile.TemporaryDirectory() as out:
        runs = {mode: _launch(args.ranks, args.model, mode, args.sequences, out) for mode in ("replicate", "fsdp")}
    figures = report(runs, args.ranks)
    if args.save:
        save_run("bench_sharding_memory", args.save, figures)


def report(runs: dict[str, list[dict]], ranks: int) -> dict[str, Figure]:
    """Print each mode's largest rank (replicated, the baseline, first) and the sharded over replicated state; the
    figures as printed."""
    mib = 2**20
    figures: dict[str, Figure] = {}
    totals = {}
    for mode, reports in runs.items():
        worst = max(reports, key=lambda r: r["weights"] + r["grads"] + r["optimizer"])
        totals[mode] = worst["weights"] + worst["grads"] + worst["optimizer"]
        state = keep(figures, f"{mode}_state_mib", totals[mode] / mib, 0, " MiB")
        print(f"{mode:>9}: per rank weights {worst['weights'] / mib:7.1f} MiB, gradients {worst['grads'] / mib:7.1f} "
              f"MiB, AdamW {worst['optimizer'] / mib:7.1f} MiB = {state}; peak RSS by rank "
              + ", ".join(f"{r['max_rss'] / mib:.0f}" for r in reports) + " MiB")
    ratio = keep(figures, "state_ratio", totals["fsdp"] / totals["replicate"], 3, "×")
    print(f"training state per rank, sharded / replicated over {ranks} ranks: {ratio} (1/{ranks} = {1 / ranks:.3f})")
    return figures

if __name__ == "__main__":
    main()
