"""``spade selfplay``: designer phase -> validation -> agent rollouts (hinted and not) -> regret and rewards ->
one update per role on the shared policy -> memory update -> metrics, checkpoint and report.

This module is the loop only. The run's objects are built in :mod:`spade_core.selfplay.wiring`, what it leaves in
the run directory is written by :mod:`spade_core.selfplay.records` in the schema of
:mod:`spade_core.selfplay.metrics`, the designer's reward is :mod:`spade_core.training.designer_reward`, and every
seed comes from :mod:`spade_core.seeding`.

Crash safety: an iteration counts as finished only once its checkpoint (weights, optimiser, RNG, loop state and
every finished iteration's metrics) is written atomically; ``--resume`` restores it, rewrites ``metrics.jsonl`` from
it, and continues with the next iteration. Environments accepted mid-iteration are already in the registry store.

Time: every phase runs under a deadline from what remains of ``time_budget_minutes``
(:mod:`spade_core.selfplay.budget`); episodes a deadline ends are ``time_limit`` and censored (never trained on; a
seed with such an arm is left out of the regret estimate, the success rates and the pool's health review). SIGTERM
or Ctrl-C (:mod:`spade_core.selfplay.signals`) expires every deadline: the iteration stops at its next turn boundary,
skips its update if it has not begun, and writes its metrics line (``partial``) and checkpoint; no further iteration
starts.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from spade_core import seeding
from spade_core.deadlines import NO_DEADLINE, Deadline, StopRequest
from spade_core.designer.loop import Attempt, DesignConfig, Designer
from spade_core.gym_bridge import register_store
from spade_core.rollout.specs import EpisodeSpec
from spade_core.rollout.trajectory import FINISH_TIME_LIMIT, Trajectory, generation_trajectory
from spade_core.selfplay.budget import IterationBudget, RunBudget
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.metrics import (
    AgentMetrics,
    BudgetMetrics,
    CandidateRecord,
    DesignerMetrics,
    IterationMetrics,
    PoolMetrics,
    RegretMetrics,
    RoleUpdate,
    ThroughputMetrics,
    TimeSplit,
    TrainMetrics,
)
from spade_core.selfplay.pool_health import PoolHealth, Retirement
from spade_core.selfplay.records import CONFIG_FILE, RunRecords, latest_checkpoint
from spade_core.selfplay.report import write_report
from spade_core.selfplay.signals import stop_on_signals
from spade_core.selfplay.small_world import run_comparison
from spade_core.selfplay.transcripts import pick_examples
from spade_core.selfplay.verdicts import RoleContext, parameter_count, role_verdicts
from spade_core.selfplay.wiring import RunParts, build_run, build_trainer, run_store, validation_config
from spade_core.training.designer_reward import designer_reward
from spade_core.training.regret import ARMS, RegretEstimate, arm_of, regret_from_trajectories
from spade_core.training.weight_sync import WeightSyncMismatchError
from spade_core.typed_config import derive, load_config, to_dict
from spade_core.validation.calibration import AgentProbe, probe_from_spec
from spade_core.validation.candidate import CalibrationProbe
from spade_registry.records import Status

__all__ = ["Progress", "SelfPlay", "latest_checkpoint"]

Progress = Callable[[str, int, int, float | None], None]
"""``progress(phase, iteration, iterations, eta_seconds)``."""


@dataclass
class DesignPhase:
    """What the designer phase of one iteration produced."""

    metrics: DesignerMetrics
    attempts: list[Attempt] = field(default_factory=list)


@dataclass
class AgentPhase:
    """What the agent phase of one iteration produced."""

    metrics: AgentMetrics
    regret: dict[str, RegretEstimate] = field(default_factory=dict)
    trajectories: list[Trajectory] = field(default_factory=list)
    tokens: int = 0
    retired: list[Retirement] = field(default_factory=list)


class SelfPlay:
    """One self-play run in ``config.run_dir``."""

    def __init__(self, config: SelfPlayConfig, *, progress: Progress | None = None) -> None:
        self.config = config
        self.run_dir = Path(config.run_dir)
        self.records = RunRecords(self.run_dir)
        self.progress = progress or (lambda *args: None)
        self.data_parallel: Any = None  # a DataParallel group, set by run() when launched as several processes
        self.history: list[IterationMetrics] = []
        self.start_iteration = 0
        self.parts: RunParts | None = None
        self._validation_probe: CalibrationProbe | None = None
        self.stop = StopRequest()  # SIGTERM / Ctrl-C during run(); its reason names the signal
        self.current_iteration = 0  # the iteration running (or next to run)

    # -- set-up -----------------------------------------------------------------------------------------------
    @classmethod
    def resume(cls, run_dir: str | Path, *, overrides: list[str] | None = None, **kwargs: Any) -> SelfPlay:
        """Continue the run in ``run_dir`` from its last finished iteration."""
        config = load_config(SelfPlayConfig, Path(run_dir) / CONFIG_FILE, overrides)
        config = replace(config, run_dir=str(run_dir))
        return cls(config, **kwargs)

    def _probe(self) -> CalibrationProbe | None:
        """The ``validation.probe`` model, loaded once (None when not configured)."""
        if self.config.validation.probe is not None and self._validation_probe is None:
            self._validation_probe = probe_from_spec(self.config.validation.probe)
        return self._validation_probe

    def _setup(self) -> RunParts:
        cfg = self.config
        self.records.write_config_once(to_dict(cfg))
        parts = build_run(cfg, self.run_dir, data_parallel=self.data_parallel, on_model_load=lambda: self.progress(
            "loading the model", self.start_iteration, cfg.iterations, None))
        self.parts = parts
        checkpoint = self.records.latest_checkpoint()
        if checkpoint is not None:
            state = parts.trainer.load(checkpoint)  # restores weights, optimiser and every RNG
            self.start_iteration = int(state["iteration"]) + 1
            self.history = [IterationMetrics.from_mapping(m) for m in state.get("metrics", [])]
            parts.agent_advantages.load_state_dict(state["agent_advantages"])
            parts.designer_advantages.load_state_dict(state["designer_advantages"])
        self.records.rewrite_metrics(self.history)
        self.records.open_tensorboard()
        return parts

    # -- the loop ---------------------------------------------------------------------------------------------
    def run(self) -> Path:
        """Run (or continue) until ``iterations`` are finished or the time budget is spent; returns the report.

        Under torchrun/accelerate with several processes, rank 0 runs the loop and the other ranks sample and train
        their shares (:mod:`spade_core.training.data_parallel`)."""
        from spade_core.training.data_parallel import DataParallel  # imports torch

        self.data_parallel = DataParallel.from_env()
        if self.data_parallel is not None and not self.data_parallel.is_driver:
            return self._follow()
        started = time.perf_counter()  # the small world's minutes count against the time budget too
        budget = RunBudget(self.config.time_budget_minutes * 60, self.config.budget, self.stop)
        with stop_on_signals(self.stop):
            try:
                self._run_loop(budget, started)
            finally:
                self._close()
        return write_report(self.run_dir)

    def _run_loop(self, budget: RunBudget, started: float) -> None:
        cfg = self.config
        if cfg.small_world.enabled:
            run_comparison(cfg.small_world, self.run_dir, lambda phase: self.progress(
                phase, self.start_iteration, cfg.iterations, None), deadline=budget.small_world())
            write_report(self.run_dir)
        self._setup()
        setup_seconds = time.perf_counter() - started
        durations: list[float] = []
        for iteration in range(self.start_iteration, cfg.iterations):
            if budget.spent():
                why = f"stopped by {self.stop.reason}" if self.stop.requested else "time budget reached"
                self.progress(f"{why} after {iteration} iteration(s)", iteration, cfg.iterations, 0.0)
                break
            t0 = time.perf_counter()
            self.iteration(iteration, started, durations, setup_seconds=setup_seconds,
                           budget=budget.iteration(cfg.iterations - iteration))
            durations.append(time.perf_counter() - t0)

    def _close(self) -> None:
        if self.parts is not None:
            self.parts.scale.close()
            self.parts.trainer.close()  # releases data-parallel followers, engines, temporary files
            if self.data_parallel is not None:
                self.data_parallel.leave()  # the followers, released, leave too
        self.records.close()

    def _follow(self) -> Path:
        """A data-parallel follower: build the same trainer and engine, then serve the driver until it stops."""
        from spade_core.training.data_parallel import serve  # imports torch

        trainer = build_trainer(self.config, self.run_dir, data_parallel=self.data_parallel)
        try:
            serve(trainer, self.data_parallel)
        finally:
            trainer.close()
        self.data_parallel.leave()
        return self.run_dir / "report.html"

    def iteration(self, i: int, started: float, durations: list[float], *, setup_seconds: float = 0.0,
                  budget: IterationBudget | None = None) -> IterationMetrics:
        """One iteration; ``budget`` (None: unbounded) gives the designer and agent phases their deadlines."""
        parts = self._parts()
        cfg = self.config
        self.current_iteration = i
        times: Counter[str] = Counter()
        t_start = time.perf_counter()
        eta = (sum(durations) / len(durations)) * (cfg.iterations - i) if durations else None
        errors: list[str] = []
        spent = BudgetMetrics(share_s=round(budget.share_s, 2) if budget is not None else 0.0)

        self.progress("designing environments", i, cfg.iterations, eta)
        deadline = budget.deadline("designer") if budget is not None else Deadline(stop=self.stop)
        spent.designer_s = round(min(deadline.remaining(), 1e9), 2)
        design = self._designer_phase(i, times, errors, deadline)

        self.progress("agent rollouts (with and without hints)", i, cfg.iterations, eta)
        deadline = budget.deadline("agent") if budget is not None else Deadline(stop=self.stop)
        spent.agent_s = round(min(deadline.remaining(), 1e9), 2)
        rollouts = self._agent_phase(i, design.metrics.accepted_ids, times, errors, deadline)

        if self.stop.requested:  # stopped: no update begins; the iteration is recorded as partial
            train = TrainMetrics()
        else:
            self.progress("policy update", i, cfg.iterations, eta)
            train = self._train_phase(i, design, rollouts, times, errors)

        total = time.perf_counter() - t_start
        other = max(0.0, total - times["generate"] - times["validate"] - times["train"])
        generated = design.metrics.tokens + rollouts.tokens
        pool = parts.store.query(status=Status.ACCEPTED)
        regret_values = [e.regret for e in rollouts.regret.values()]
        metrics = IterationMetrics(
            iteration=i,
            designer=design.metrics,
            regret=RegretMetrics(values=regret_values, mean=_mean(regret_values), per_env=rollouts.regret),
            agent=rollouts.metrics,
            pool=PoolMetrics(size=len(pool), diversity=len({r.name for r in pool}) / max(1, len(pool)),
                             retired=rollouts.retired),
            throughput=ThroughputMetrics(tokens=generated, tokens_per_s=generated / max(1e-9, times["generate"])),
            time=TimeSplit(generate=round(times["generate"], 3), validate=round(times["validate"], 3),
                           train=round(times["train"], 3), other=round(other, 3), total=round(total, 3)),
            train=train,
            budget=spent,
            partial=self.stop.requested,
            stopped_by=self.stop.reason,
            errors=errors,
            wall_seconds=round(time.perf_counter() - started, 2),
            setup_seconds=round(setup_seconds, 2),
            ray=parts.scale.iteration_metrics().get("ray"),  # on Ray: nodes, env actors, where envs ran
        )
        metrics.summary = role_verdicts(metrics, RoleContext(
            designer_enabled=cfg.designer.enabled, designer_parameters=parameter_count(parts.designer_model.backend),
            agent_parameters=parameter_count(parts.trainer.generator)))
        self.history.append(metrics)
        self.records.save_checkpoint(parts.trainer, i, self._loop_state(i))
        self.records.append_metrics(metrics)
        self.records.write_scalars(metrics)
        write_report(self.run_dir)
        return metrics

    def _parts(self) -> RunParts:
        if self.parts is None:
            raise RuntimeError("SelfPlay.iteration() runs inside run(), after the run's objects are built")
        return self.parts

    def _loop_state(self, i: int) -> dict[str, Any]:
        parts = self._parts()
        return {
            "iteration": i, "metrics": [to_dict(m) for m in self.history],
            "agent_advantages": parts.agent_advantages.state_dict(),
            "designer_advantages": parts.designer_advantages.state_dict(),
        }

    # -- phases -----------------------------------------------------------------------------------------------
    def _designer_phase(self, i: int, times: Counter[str], errors: list[str],
                        deadline: Deadline = NO_DEADLINE) -> DesignPhase:
        parts = self._parts()
        cfg = self.config.designer
        metrics = DesignerMetrics(**parts.designer_model.metrics())
        phase = DesignPhase(metrics)
        outcomes: Counter[str] = Counter()
        per_domain = _split_evenly(cfg.candidates_per_iteration, cfg.domains, i) if cfg.enabled else {}
        for domain, n in per_domain.items():
            if n == 0:
                continue
            if deadline.expired():  # no new candidate past the phase's deadline
                metrics.not_started += n
                continue
            try:
                designer = Designer(
                    parts.designer_model.backend, parts.corpus, parts.store, memory=parts.memory,
                    config=derive(DesignConfig, cfg, domain=domain, seed=seeding.designer_seed(self.config.seed, i),
                                  **({} if cfg.memory else MEMORY_OFF)),
                    validation=validation_config(self.config),
                    validate=parts.scale.validate_many,
                    # opt-in: validation.probe (a model spec) or designer.calibrate=true (the agent); by default no
                    # stage plays a model
                    probe=self._probe() or (AgentProbe(parts.trainer.generator, parts.runner.config)
                                            if cfg.calibrate else None),
                )
                design = designer.design(n, deadline=deadline)
            except Exception as exc:  # a failed designer phase must not kill the run
                errors.append(self.records.record_failure(i, f"designer[{domain}]", exc))
                continue
            times["generate"] += designer.generate_seconds
            times["validate"] += designer.validate_seconds
            metrics.not_started += design.not_started
            for candidate in design.candidates:
                number = metrics.candidates
                metrics.candidates += 1
                outcomes["accepted" if candidate.accepted else candidate.status] += 1
                report = candidate.final.report
                if candidate.accepted and report.env_id:
                    metrics.accepted_ids.append(report.env_id)
                code_file = None
                for j, attempt in enumerate(candidate.attempts):
                    metrics.tokens += attempt.generation.num_tokens
                    phase.attempts.append(attempt)
                    code = attempt.source if attempt.source is not None else attempt.generation.text
                    code_file = self.records.write_design(i, number, j, code, is_code=attempt.source is not None)
                metrics.designs.append(CandidateRecord(
                    index=number, domain=domain, name=report.name, verdict=report.verdict.value,
                    status=Status(report.status).value, stage=report.failed_stage, message=report.message,
                    attempts=len(candidate.attempts), env_id=report.env_id, code_file=code_file,
                ))
        metrics.outcomes = dict(outcomes)
        metrics.accepted = len(metrics.accepted_ids)
        metrics.attempts = len(phase.attempts)
        register_store(run_store(self.config), sync_seeds=False)
        return phase

    def _agent_envs(self, i: int, new_ids: list[str]) -> list[str]:
        parts = self._parts()
        cfg = self.config.agent
        chosen = [e for e in new_ids if self._playable(e)][: cfg.envs_per_iteration]
        wanted = cfg.envs_per_iteration - len(chosen)
        if wanted > 0:
            replay = parts.memory.sample_replay(
                wanted, seed=seeding.replay_seed(self.config.seed, i),
                eligible=lambda rid: (r := parts.store.get(rid)).env_id not in chosen and self._playable(r.env_id),
            )
            chosen += [parts.store.get(rid).env_id for rid in replay]
        return chosen

    def _playable(self, env_id: str | None) -> bool:
        if env_id is None:
            return False
        record = self._parts().store.get(env_id)
        cfg = self.config.agent
        turns_ok = 0 < record.max_turns and (cfg.max_env_turns is None or record.max_turns <= cfg.max_env_turns)
        return (turns_ok and (cfg.domains is None or record.domain in cfg.domains)
                and (cfg.pool_ids is None or env_id in cfg.pool_ids)
                and (cfg.pool_tags is None or bool(set(record.manifest.get("tags") or ()) & set(cfg.pool_tags))))

    def _agent_phase(self, i: int, new_ids: list[str], times: Counter[str], errors: list[str],
                     deadline: Deadline = NO_DEADLINE) -> AgentPhase:
        parts = self._parts()
        cfg = self.config.agent
        envs = self._agent_envs(i, new_ids)
        phase = AgentPhase(AgentMetrics(envs=envs))
        if not envs:
            errors.append("agent: no playable environment in the pool")
            return phase
        seeds = seeding.episode_seeds(self.config.seed, i, cfg.seeds_per_env)
        views = ARMS if parts.regret_config.hint_only_arm else ARMS[:2]  # hint-only: the hint without the task
        specs = [EpisodeSpec(env_id, seed, hinted=view != "unhinted", hint_only=view == "hint_only", role="agent",
                             group_id=f"{env_id}|{'hint_only' if view == 'hint_only' else int(view == 'hinted')}")
                 for env_id in envs for seed in seeds for view in views]
        try:
            result = parts.runner.run(specs, seed=seeding.rollout_seed(self.config.seed, i), deadline=deadline)
        except Exception as exc:  # keep the run alive; the iteration trains on what it has
            errors.append(self.records.record_failure(i, "agent rollouts", exc))
            return phase
        times["generate"] += result.stats.generate_seconds
        phase.tokens = result.stats.completion_tokens
        phase.metrics.episodes = result.stats.episodes
        phase.metrics.env_failures = result.stats.env_failures
        phase.metrics.time_limited = result.stats.time_limited
        phase.metrics.not_started = result.stats.not_started
        # censored seeds (an arm time-limited or never started) are scored nowhere: not in regret, rates or health
        trajectories = []
        for env_id in envs:
            mine = [t for t in result.trajectories if t.env_id == env_id]
            scored = [t for t in mine if t.seed not in censored_seeds(mine, views)]
            phase.metrics.censored_pairs += len(seeds) - len({t.seed for t in scored})
            trajectories += scored
        phase.trajectories = [t for t in trajectories if not t.hint_only]  # hint-only episodes are measured only
        by_view = {view: [t for t in trajectories if arm_of(t) == view] for view in ARMS}
        phase.metrics.success_hinted = _mean([float(t.success) for t in by_view["hinted"]])
        phase.metrics.success_unhinted = _mean([float(t.success) for t in by_view["unhinted"]])
        if by_view["hint_only"]:
            phase.metrics.success_hint_only = _mean([float(t.success) for t in by_view["hint_only"]])
            phase.metrics.hint_only_episodes = len(by_view["hint_only"])
        phase.metrics.mean_reward = _mean([t.reward for t in by_view["unhinted"]])
        for env_id in envs:
            mine = [t for t in trajectories if t.env_id == env_id and t.seat == 0]
            if not mine:
                continue  # every seed censored: no estimate (the designer's reward treats it as unplayed)
            try:
                estimate = regret_from_trajectories(mine, parts.regret_config)
            except Exception as exc:  # one env's bad pairing must not lose the others
                errors.append(self.records.record_failure(i, f"regret[{env_id}]", exc))
                continue
            phase.regret[env_id] = estimate
            stats = parts.store.get(env_id).stats
            played = [t for t in mine if not t.hint_only]
            parts.store.update_stats(env_id, {
                "episodes": int(stats.get("episodes", 0)) + len(played),
                "successes": int(stats.get("successes", 0)) + sum(int(t.success) for t in mine if not t.hinted),
                "p_hint": estimate.p_hint, "p_nohint": estimate.p_nohint, "regret": estimate.regret,
            })
            parts.memory.record_score(env_id, estimate.regret)
        phase.retired = PoolHealth(parts.store, self.config.pool).review(trajectories, iteration=i)
        tokenizer = getattr(parts.trainer.generator, "tokenizer", None)
        phase.metrics.examples = pick_examples(
            phase.trajectories, phase.regret, decode=tokenizer.decode if tokenizer is not None else None,
            write=lambda name, text: self.records.write_transcript(i, name, text))
        return phase

    def _train_phase(self, i: int, design: DesignPhase, rollouts: AgentPhase, times: Counter[str],
                     errors: list[str]) -> TrainMetrics:
        parts = self._parts()
        train = TrainMetrics()
        agent = [t for t in rollouts.trajectories if self.config.agent.train_on_hinted or not t.hinted]
        designer = []
        if parts.designer_model.frozen:
            train.designer_update = parts.designer_model.skip_note()
        for n, attempt in enumerate(design.attempts if not parts.designer_model.frozen else ()):
            generation = attempt.generation
            if (not generation.completion_ids or len(generation.logprobs) != len(generation.completion_ids)
                    or generation.distribution is None):
                continue
            report = attempt.report
            reward = designer_reward(accepted=report.accepted, status=report.status,
                                     estimate=rollouts.regret.get(report.env_id or ""), config=parts.regret_config)
            designer.append(generation_trajectory(  # sampled at the designer's temperature/top-p, scored so
                generation, role="designer", group_id="designer", episode_id=f"designer-{n}", reward=reward,
                success=report.accepted,
            ))
        t0 = time.perf_counter()
        for role, trajectories, estimator in (("agent", agent, parts.agent_advantages),
                                              ("designer", designer, parts.designer_advantages)):
            if not trajectories:
                continue
            try:
                advantages = estimator.compute(trajectories)
                update = parts.trainer.update(trajectories, advantages)
            except WeightSyncMismatchError:
                raise  # the generator no longer samples the trained policy: stop rather than train off-policy
            except Exception as exc:  # a failed update is recorded; the run goes on
                errors.append(self.records.record_failure(i, f"update[{role}]", exc))
                continue
            loss = update.get("loss")
            setattr(train, role, RoleUpdate(
                loss=None if loss is None else float(loss), trajectories=len(trajectories),
                mean_advantage=_mean(advantages),
                metrics={k: float(v) for k, v in update.items() if isinstance(v, (int, float))},
            ))
        times["train"] += time.perf_counter() - t0
        return train


MEMORY_OFF = {"neighbours": 0, "failures": 0}
"""designer.memory=false: the designer's prompt shows no pool neighbours and no past failures."""


def censored_seeds(trajectories: list[Trajectory], arms: tuple[str, ...]) -> set[int | None]:
    """The seeds of one environment's paired rollouts that did not play every arm to an end: an arm its deadline
    ended (``time_limit``) or never started. Censored, they say nothing about the environment or the policy."""
    finishes: dict[int | None, dict[str, str]] = {}
    for t in trajectories:
        finishes.setdefault(t.seed, {})[arm_of(t)] = t.finish
    return {seed for seed, by_arm in finishes.items()
            if len(by_arm) < len(arms) or FINISH_TIME_LIMIT in by_arm.values()}


def _split_evenly(total: int, domains: list[str], offset: int) -> dict[str, int]:
    counts = dict.fromkeys(domains, 0)
    for k in range(total):
        counts[domains[(offset + k) % len(domains)]] += 1
    return counts


def _mean(values: list[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0

