"""``spade selfplay``: designer phase -> validation -> agent rollouts (hinted and not) -> regret and rewards ->
one update per role on the shared policy -> memory update -> metrics, checkpoint and report.

Crash safety: an iteration counts as finished only once its checkpoint (weights, optimiser, RNG, loop state and
every finished iteration's metrics) is written atomically; ``--resume`` restores it, rewrites ``metrics.jsonl`` from
it, and continues with the next iteration. Environments accepted mid-iteration are already in the registry store.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from spade_core.selfplay.config import GENERATORS, SelfPlayConfig
from spade_core.selfplay.designer_model import designer_model
from spade_core.selfplay.report import METRICS_FILE, write_report
from spade_core.training.weight_sync import WeightSyncMismatchError
from spade_core.typed_config import load_config, to_dict

CHECKPOINT_DIR = "checkpoints"
CONFIG_FILE = "config.yaml"
DESIGNER_REWARDS = {"duplicate": 0.0, "trivial": 0.0}

Progress = Callable[[str, int, int, float | None], None]
"""``progress(phase, iteration, iterations, eta_seconds)``."""


class SelfPlay:
    """One self-play run in ``config.run_dir``."""

    def __init__(self, config: SelfPlayConfig, *, progress: Progress | None = None) -> None:
        self.config = config
        self.run_dir = Path(config.run_dir)
        self.progress = progress or (lambda *args: None)
        self.data_parallel: Any = None  # set by run() when launched as several processes
        self.history: list[dict[str, Any]] = []
        self.start_iteration = 0

    # -- set-up -----------------------------------------------------------------------------------------------
    @classmethod
    def resume(cls, run_dir: str | Path, *, overrides: list[str] | None = None, **kwargs: Any) -> SelfPlay:
        """Continue the run in ``run_dir`` from its last finished iteration."""
        config = load_config(SelfPlayConfig, Path(run_dir) / CONFIG_FILE, overrides)
        config = replace(config, run_dir=str(run_dir))
        return cls(config, **kwargs)

    def _setup(self) -> None:
        from spade_core.corpora import open_corpus
        from spade_core.gym_bridge import open_store, register_store, sync_seed_environments
        from spade_core.memory import EnvironmentMemory
        from spade_core.models.base import SamplingParams
        from spade_core.rollout.runner import EpisodeRunner, RolloutConfig
        from spade_core.scale import open_scale_out
        from spade_core.training.advantages import AdvantageConfig, AdvantageEstimator
        from spade_core.training.regret import RegretConfig

        cfg = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        config_path = self.run_dir / CONFIG_FILE
        if not config_path.exists():
            _atomic_write(config_path, yaml.safe_dump(to_dict(cfg), sort_keys=False))
        self.store = open_store(cfg.store)
        sync_seed_environments(self.store)
        register_store(cfg.store)
        self.memory = EnvironmentMemory(self.store, embedder=_embedder(cfg.memory.embedder))
        self.corpus = open_corpus(cfg.designer.corpus)
        self.scale = open_scale_out(cfg.ray, store=str(self.store.path))  # this machine, or Ray (--ray)
        self.progress("loading the model", self.start_iteration, cfg.iterations, None)
        self.trainer = self._build_trainer()
        self.designer_model = designer_model(cfg.designer.model, self.trainer.generator, openai=cfg.designer.openai,
                                             max_batch_size=cfg.model.max_batch_size)
        self.runner = EpisodeRunner(self.trainer.generator, RolloutConfig(
            sampling=SamplingParams(max_new_tokens=cfg.agent.max_new_tokens, temperature=cfg.agent.temperature),
            max_concurrent_episodes=cfg.agent.max_concurrent_episodes, seed=cfg.seed,
        ), env_pool=self.scale.env_pool)
        self.regret_config = RegretConfig(
            k=cfg.agent.seeds_per_env, no_hint_success_penalty=cfg.regret.no_hint_success_penalty,
            invalid_reward=cfg.regret.invalid_reward, learnability_weight=cfg.regret.learnability_weight,
            statistic=cfg.regret.statistic,
        )
        self.agent_advantages = AdvantageEstimator(AdvantageConfig(estimator=cfg.train.agent_advantage))
        self.designer_advantages = AdvantageEstimator(AdvantageConfig(estimator=cfg.train.designer_advantage))
        checkpoint = latest_checkpoint(self.run_dir)
        if checkpoint is not None:
            state = self.trainer.load(checkpoint)  # restores weights, optimiser and every RNG
            self.start_iteration = int(state["iteration"]) + 1
            self.history = list(state.get("metrics", []))
            self.agent_advantages.load_state_dict(state["agent_advantages"])
            self.designer_advantages.load_state_dict(state["designer_advantages"])
        _atomic_write(self.run_dir / METRICS_FILE, "".join(json.dumps(m) + "\n" for m in self.history))
        from torch.utils.tensorboard import SummaryWriter

        self.tensorboard = SummaryWriter(str(self.run_dir / "tensorboard"))

    def _build_trainer(self) -> Any:
        from spade_core.models.loading import load_model
        from spade_core.training.backend import find_trainer_backend

        cfg = self.config
        if cfg.model.torch_threads > 0:
            import torch

            torch.set_num_threads(cfg.model.torch_threads)
        group = getattr(self, "data_parallel", None)
        settings = self._trainer_settings()
        if settings.get("sharding") == "fsdp":
            # every rank starts from the architecture with its weights on the meta device; the trainer streams each
            # rank's shards from the checkpoint files, so no process holds a whole copy. Where the files name the
            # weights differently from the model, rank 0 loads the whole model on the host and shares it out.
            from spade_core.training.sharding import can_stream_weights

            loaded = load_model(cfg.model.spec, device="cpu", dtype="float32", weights=False)
            if group is not None and group.is_driver and not can_stream_weights(loaded.model, loaded.directory):
                loaded = load_model(cfg.model.spec, device="cpu", dtype="float32")
        else:
            loaded = load_model(cfg.model.spec, device="cpu" if not _cuda() else None)
        factory = find_trainer_backend(cfg.train.backend)
        generator = self._build_generator(loaded.directory)  # every rank samples its share of each batch
        extra: dict[str, Any] = {"generator": generator} if generator is not None else {}
        if group is not None:
            extra["data_parallel"] = group
        trainer = factory(loaded.model, loaded.tokenizer, config=settings, **extra)
        if group is not None and group.is_driver:
            from spade_core.training.data_parallel import DataParallelDriver

            return DataParallelDriver(trainer, group)
        return trainer

    def _trainer_settings(self) -> dict[str, Any]:
        """The backend's config: the shared ``train`` knobs it understands, then ``train.backend_options``."""

        cfg = self.config
        shared: dict[str, Any] = {"learning_rate": cfg.train.learning_rate, "seed": cfg.seed}
        if cfg.train.backend == "reference":
            shared |= {"kl_coef": cfg.train.kl_coef, "micro_batch_size": cfg.train.micro_batch_size,
                       "max_completion_tokens": cfg.train.max_completion_tokens,
                       "lora": {"r": cfg.train.lora_r} if cfg.train.lora_r else None,
                       "generator_max_batch_size": cfg.model.max_batch_size}
        elif cfg.train.backend == "trl":
            shared |= {"lora": {"r": cfg.train.lora_r} if cfg.train.lora_r else None,
                       "beta": cfg.train.kl_coef, "per_device_train_batch_size": cfg.train.micro_batch_size,
                       "max_completion_length": cfg.train.max_completion_tokens,
                       "generator_max_batch_size": cfg.model.max_batch_size,
                       "output_dir": str(self.run_dir / "trl"),
                       # the loop calls update() with its own groups; TRL still checks its train()-only batch shape
                       "num_generations": 2, "steps_per_generation": 2}
        return shared | dict(cfg.train.backend_options)

    def _build_generator(self, model_dir: Path) -> Any:
        """``None``: the trainer samples from its own module; otherwise a separate engine it pushes weights to."""
        from spade_core.typed_config import ConfigError

        kind = self.config.model.generator
        if kind not in GENERATORS:
            raise ConfigError(f"model.generator: expected one of {GENERATORS}, got {kind!r}")
        if self.config.ray.generator_actors > 0:
            return self._ray_generators(model_dir, kind)
        if kind == "hf":
            return None
        if kind == "hf_engine":
            from spade_core.models.hf_generator import HFGenerator

            return HFGenerator.from_pretrained(model_dir, device="cuda" if _cuda() else "cpu",
                                               max_batch_size=self.config.model.max_batch_size)
        if kind == "vllm":
            from spade_core.models.vllm_backend import VLLMBackend

            rank = getattr(getattr(self, "data_parallel", None), "rank", 0)
            options = {"seed": self.config.seed + rank} | dict(self.config.model.vllm)
            return VLLMBackend(model_dir, colocate=True, **options)
        raise AssertionError(f"unhandled generator {kind!r}")

    def _ray_generators(self, model_dir: Path, kind: str) -> Any:
        """``ray.generator_actors`` engines on Ray (vLLM ones for ``vllm``, transformers ones otherwise)."""
        from spade_core.scale import ray_requested
        from spade_core.typed_config import ConfigError

        cfg = self.config
        if not ray_requested(cfg.ray):
            raise ConfigError(f"ray.generator_actors={cfg.ray.generator_actors} samples on Ray actors: enable Ray "
                              "(spade selfplay --ray, or ray.enabled=true)")
        if getattr(self, "data_parallel", None) is not None:
            raise ConfigError("ray.generator_actors and a torchrun/accelerate launch both spread generation; use one")
        return self.scale.start_generators(
            str(model_dir), kind="vllm" if kind == "vllm" else "hf", options=dict(cfg.model.vllm),
            max_batch_size=cfg.model.max_batch_size, seed=cfg.seed)

    # -- the loop ---------------------------------------------------------------------------------------------
    def run(self) -> Path:
        """Run (or continue) until ``iterations`` are finished or the time budget is spent; returns the report.

        Under torchrun/accelerate with several processes, rank 0 runs the loop and the other ranks sample and train
        their shares (:mod:`spade_core.training.data_parallel`)."""
        from spade_core.training.data_parallel import DataParallel

        self.data_parallel = DataParallel.from_env()
        if self.data_parallel is not None and not self.data_parallel.is_driver:
            return self._follow()
        started = time.perf_counter()
        try:
            self._setup()
            setup_seconds = time.perf_counter() - started
            budget = self.config.time_budget_minutes * 60
            durations: list[float] = []
            for iteration in range(self.start_iteration, self.config.iterations):
                elapsed = time.perf_counter() - started
                expected = max(durations) if durations else 0.0
                if durations and elapsed + expected > budget:
                    self.progress(f"time budget reached after {iteration} iteration(s)", iteration,
                                  self.config.iterations, 0.0)
                    break
                t0 = time.perf_counter()
                metrics = self.iteration(iteration, started, durations)
                durations.append(time.perf_counter() - t0)
                metrics["setup_seconds"] = round(setup_seconds, 2)
        finally:
            if hasattr(self, "scale"):
                self.scale.close()
            if hasattr(getattr(self, "trainer", None), "close"):
                self.trainer.close()  # releases data-parallel followers
        self.tensorboard.close()
        return write_report(self.run_dir)

    def _follow(self) -> Path:
        """A data-parallel follower: build the same trainer and engine, then serve the driver until it stops."""
        from spade_core.training.data_parallel import serve

        serve(self._build_trainer(), self.data_parallel)
        return self.run_dir / "report.html"

    def iteration(self, i: int, started: float, durations: list[float]) -> dict[str, Any]:
        cfg = self.config
        times = Counter()
        t_start = time.perf_counter()
        eta = (sum(durations) / len(durations)) * (cfg.iterations - i) if durations else None
        errors: list[str] = []

        self.progress("designing environments", i, cfg.iterations, eta)
        design = self._designer_phase(i, times, errors)

        self.progress("agent rollouts (with and without hints)", i, cfg.iterations, eta)
        rollouts = self._agent_phase(i, design["accepted_ids"], times, errors)

        self.progress("policy update", i, cfg.iterations, eta)
        train = self._train_phase(design, rollouts, times, errors)

        total = time.perf_counter() - t_start
        times["other"] = max(0.0, total - times["generate"] - times["validate"] - times["train"])
        generated = design["tokens"] + rollouts["tokens"]
        pool = self.store.query(status="accepted")
        metrics = {
            "iteration": i,
            "designer": {"candidates": design["candidates"], "accepted": len(design["accepted_ids"]),
                         "outcomes": design["outcomes"], "attempts": len(design["attempts"]), "tokens": design["tokens"],
                         "accepted_ids": design["accepted_ids"], **self.designer_model.metrics()},
            "regret": {"values": [r["regret"] for r in rollouts["regret"].values()],
                       "mean": _mean([r["regret"] for r in rollouts["regret"].values()]),
                       "per_env": rollouts["regret"]},
            "agent": {"envs": rollouts["envs"], "episodes": rollouts["episodes"],
                      "success_hinted": rollouts["success_hinted"], "success_unhinted": rollouts["success_unhinted"],
                      "mean_reward": rollouts["mean_reward"], "env_failures": rollouts["env_failures"]},
            "pool": {"size": len(pool), "diversity": len({r.name for r in pool}) / max(1, len(pool))},
            "throughput": {"tokens": generated, "tokens_per_s": generated / max(1e-9, times["generate"])},
            "time": {"generate": round(times["generate"], 3), "validate": round(times["validate"], 3),
                     "train": round(times["train"], 3), "other": round(times["other"], 3), "total": round(total, 3)},
            "train": train,
            "errors": errors,
            "wall_seconds": round(time.perf_counter() - started, 2),
            **self.scale.iteration_metrics(),  # {"ray": {...}} on Ray: nodes, env actors, where envs ran
        }
        self.history.append(metrics)
        self._checkpoint(i)
        with open(self.run_dir / METRICS_FILE, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(metrics) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self._tensorboard(metrics)
        write_report(self.run_dir)
        return metrics

    # -- phases -----------------------------------------------------------------------------------------------
    def _designer_phase(self, i: int, times: Counter, errors: list[str]) -> dict[str, Any]:
        from spade_core.designer.loop import DesignConfig, Designer
        from spade_core.gym_bridge import register_store
        from spade_core.validation import ValidationConfig

        cfg = self.config.designer
        result = {"candidates": 0, "accepted_ids": [], "outcomes": {}, "attempts": [], "tokens": 0}
        outcomes: Counter[str] = Counter()
        per_domain = _split_evenly(cfg.candidates_per_iteration, cfg.domains, i)
        for domain, n in per_domain.items():
            if n == 0:
                continue
            try:
                designer = Designer(
                    self.designer_model.backend, self.corpus, self.store, memory=self.memory,
                    config=DesignConfig(domain=domain, max_repairs=cfg.max_repairs, seed=self.config.seed * 7919 + i,
                                        max_new_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                                        worked_example=cfg.worked_example),
                    validation=ValidationConfig(seeds=tuple(range(cfg.validation_seeds)),
                                                baseline_episodes=cfg.validation_seeds),
                    validate=self.scale.validate_many,
                )
                design = designer.design(n)
            except Exception as exc:  # noqa: BLE001 - a failed designer phase must not kill the run
                errors.append(f"designer[{domain}]: {type(exc).__name__}: {exc}")
                continue
            times["generate"] += designer.generate_seconds
            times["validate"] += designer.validate_seconds
            for candidate in design.candidates:
                result["candidates"] += 1
                outcomes["accepted" if candidate.accepted else candidate.status] += 1
                if candidate.accepted and candidate.final.report.env_id:
                    result["accepted_ids"].append(candidate.final.report.env_id)
                for attempt in candidate.attempts:
                    result["tokens"] += attempt.generation.num_tokens
                    result["attempts"].append(attempt)
        result["outcomes"] = dict(outcomes)
        register_store(self.config.store, sync_seeds=False)
        return result

    def _agent_envs(self, i: int, new_ids: list[str]) -> list[str]:
        cfg = self.config.agent
        chosen = [e for e in new_ids if self._playable(e)][: cfg.envs_per_iteration]
        wanted = cfg.envs_per_iteration - len(chosen)
        if wanted > 0:
            replay = self.memory.sample_replay(
                wanted, seed=self.config.seed * 104729 + i,
                eligible=lambda rid: (r := self.store.get(rid)).env_id not in chosen and self._playable(r.env_id),
            )
            chosen += [self.store.get(rid).env_id for rid in replay]
        return chosen

    def _playable(self, env_id: str | None) -> bool:
        if env_id is None:
            return False
        record = self.store.get(env_id)
        domains = self.config.agent.domains
        return 0 < record.max_turns <= self.config.agent.max_env_turns and (domains is None or record.domain in domains)

    def _agent_phase(self, i: int, new_ids: list[str], times: Counter, errors: list[str]) -> dict[str, Any]:
        from spade_core.rollout.runner import EpisodeSpec
        from spade_core.training.regret import regret_from_trajectories

        cfg = self.config.agent
        out: dict[str, Any] = {"envs": [], "episodes": 0, "trajectories": [], "regret": {}, "tokens": 0,
                               "success_hinted": 0.0, "success_unhinted": 0.0, "mean_reward": 0.0,
                               "env_failures": 0}
        envs = self._agent_envs(i, new_ids)
        out["envs"] = envs
        if not envs:
            errors.append("agent: no playable environment in the pool")
            return out
        seeds = [self.config.seed * 1_000_003 + i * 1009 + k for k in range(cfg.seeds_per_env)]
        specs = [EpisodeSpec(env_id, seed, hinted=hinted, role="agent", group_id=f"{env_id}|{int(hinted)}")
                 for env_id in envs for seed in seeds for hinted in (True, False)]
        try:
            result = self.runner.run(specs, seed=self.config.seed * 31 + i)
        except Exception as exc:  # noqa: BLE001 - keep the run alive; the iteration trains on what it has
            errors.append(f"agent rollouts: {type(exc).__name__}: {exc}")
            return out
        times["generate"] += result.stats.generate_seconds
        out["tokens"] = result.stats.completion_tokens
        out["episodes"] = result.stats.episodes
        out["env_failures"] = result.stats.env_failures
        trajectories = result.trajectories
        out["trajectories"] = trajectories
        hinted = [t for t in trajectories if t.hinted]
        plain = [t for t in trajectories if not t.hinted]
        out["success_hinted"] = _mean([float(t.success) for t in hinted])
        out["success_unhinted"] = _mean([float(t.success) for t in plain])
        out["mean_reward"] = _mean([t.reward for t in plain])
        for env_id in envs:
            mine = [t for t in trajectories if t.env_id == env_id and t.seat == 0]
            try:
                estimate = regret_from_trajectories(mine, self.regret_config)
            except Exception as exc:  # noqa: BLE001 - one env's bad pairing must not lose the others
                errors.append(f"regret[{env_id}]: {type(exc).__name__}: {exc}")
                continue
            out["regret"][env_id] = estimate.to_dict()
            record = self.store.get(env_id)
            stats = record.stats
            self.store.update_stats(env_id, {
                "episodes": int(stats.get("episodes", 0)) + len(mine),
                "successes": int(stats.get("successes", 0)) + sum(int(t.success) for t in mine if not t.hinted),
                "p_hint": estimate.p_hint, "p_nohint": estimate.p_nohint, "regret": estimate.regret,
            })
            self.memory.record_score(env_id, estimate.regret)
        return out

    def _train_phase(self, design: dict[str, Any], rollouts: dict[str, Any], times: Counter,
                     errors: list[str]) -> dict[str, Any]:
        from spade_core.rollout.trajectory import single_turn_trajectory

        train: dict[str, Any] = {"agent_loss": None, "designer_loss": None}
        agent = [t for t in rollouts["trajectories"] if self.config.agent.train_on_hinted or not t.hinted]
        designer = []
        if self.designer_model.frozen:
            train["designer_update"] = self.designer_model.skip_note()
        for n, attempt in enumerate(design["attempts"] if not self.designer_model.frozen else ()):
            generation = attempt.generation
            if not generation.completion_ids or len(generation.logprobs) != len(generation.completion_ids):
                continue
            report = attempt.report
            if report.accepted:
                regret = rollouts["regret"].get(report.env_id or "")
                reward = regret["reward"] if regret else 0.0
            else:
                reward = DESIGNER_REWARDS.get(report.status, self.config.regret.invalid_reward)
                if report.status == "impossible":
                    reward = self.config.regret.no_hint_success_penalty
            designer.append(single_turn_trajectory(
                generation.prompt_ids, generation.completion_ids, generation.logprobs, role="designer",
                group_id="designer", episode_id=f"designer-{n}", reward=reward, success=report.accepted,
            ))
        t0 = time.perf_counter()
        for role, trajectories, estimator in (("agent", agent, self.agent_advantages),
                                              ("designer", designer, self.designer_advantages)):
            if not trajectories:
                continue
            try:
                advantages = estimator.compute(trajectories)
                metrics = self.trainer.update(trajectories, advantages)
            except WeightSyncMismatchError:
                raise  # the generator no longer samples the trained policy: stop rather than train off-policy
            except Exception as exc:  # noqa: BLE001 - a failed update is recorded; the run goes on
                errors.append(f"update[{role}]: {type(exc).__name__}: {exc}")
                continue
            train[f"{role}_loss"] = metrics.get("loss")
            train[f"{role}_metrics"] = {k: v for k, v in metrics.items() if isinstance(v, (int, float))}
            train[f"{role}_mean_advantage"] = _mean(advantages)
            train[f"{role}_trajectories"] = len(trajectories)
        times["train"] += time.perf_counter() - t0
        return train

    # -- persistence ------------------------------------------------------------------------------------------
    def _checkpoint(self, i: int) -> None:
        state = {
            "iteration": i, "metrics": self.history,
            "agent_advantages": self.agent_advantages.state_dict(),
            "designer_advantages": self.designer_advantages.state_dict(),
        }
        root = self.run_dir / CHECKPOINT_DIR
        root.mkdir(exist_ok=True)
        self.trainer.save(root / f"iter-{i:05d}", loop_state=state)  # a new name: it appears whole or not at all
        for old in root.glob("iter-*"):
            if old.name != f"iter-{i:05d}":
                shutil.rmtree(old, ignore_errors=True)

    def _tensorboard(self, metrics: dict[str, Any]) -> None:
        i = metrics["iteration"]
        scalars = {
            "designer/accepted": metrics["designer"]["accepted"], "designer/candidates": metrics["designer"]["candidates"],
            "regret/mean": metrics["regret"]["mean"], "agent/success_hinted": metrics["agent"]["success_hinted"],
            "agent/success_unhinted": metrics["agent"]["success_unhinted"], "pool/size": metrics["pool"]["size"],
            "throughput/tokens_per_s": metrics["throughput"]["tokens_per_s"],
        }
        for key, value in metrics["time"].items():
            scalars[f"time/{key}"] = value
        for key in ("agent_loss", "designer_loss"):
            if metrics["train"].get(key) is not None:
                scalars[f"train/{key}"] = metrics["train"][key]
        for key, value in scalars.items():
            self.tensorboard.add_scalar(key, float(value), i)
        self.tensorboard.flush()


def _embedder(name: str) -> Any:
    from spade_core.memory import HashingEmbedder, MiniLMEmbedder
    from spade_core.typed_config import ConfigError

    if name == "minilm":
        return MiniLMEmbedder()
    if name == "hashing":
        return HashingEmbedder()
    raise ConfigError(f"memory.embedder: expected 'minilm' or 'hashing', got {name!r}")


def _split_evenly(total: int, domains: list[str], offset: int) -> dict[str, int]:
    counts = dict.fromkeys(domains, 0)
    for k in range(total):
        counts[domains[(offset + k) % len(domains)]] += 1
    return counts


def _mean(values: list[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest finished iteration's checkpoint (each ``iter-N`` folder appears only once complete)."""
    found = sorted((Path(run_dir) / CHECKPOINT_DIR).glob("iter-[0-9]*"))
    return found[-1] if found else None


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def remove_run(run_dir: Path) -> None:
    """Delete a run directory (``--fresh``)."""
    shutil.rmtree(run_dir, ignore_errors=True)
