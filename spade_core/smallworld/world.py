"""One small-world self-play run: every real part of SPADE except the model's size.

Per iteration (arms ``defended`` and ``undefended``): the policy, as the designer, writes ``designs_per_iteration``
design programs -> :func:`~spade_core.smallworld.language.extract_design` -> each compiles to a module -> the
validation pipeline (sandbox, all stages) -> the registry store (a private SQLite store) -> the :class:`EpisodeRunner`
plays K hinted and K unhinted episodes per design with the same policy as the agent (and K hint-only ones, the hint
without the task, under the defended objective: measured, not trained on) -> :func:`regret_from_trajectories` -> the
designer's reward (``RegretConfig.objective``: ``defended`` or pure ``regret``) -> per-role advantages
(:class:`AdvantageEstimator`) -> the reference trainer's update, agent first, then designer. After every iteration the
agent is evaluated, without hints, on held-out seeds of every relay configuration.

``family`` picks the environment family (``relay``, or ``chain``: the world where the curriculum can matter; README,
"The chain world"). ``hint_only`` is the cheaper defence (:class:`~spade_core.training.regret.HintOnlyPlan`): with
any of its knobs set the hint-only arm is played after the paired rollouts, only for the
environments and seeds they select, or recalled from an earlier iteration.

``objective``, ``learnability_weight`` and ``learnability_gate`` override the arm's objective to measure the other
defences (regret blended with learnability; the learnability gate with claw-back,
:mod:`spade_core.training.learnability`).

``edit_share`` makes a designing arm keep exploring, as ACCEL does by editing the levels it has: that share of each
iteration's designs are one-knob edits (:func:`~spade_core.smallworld.family.edit_design`) of the designer's own
samples of that iteration, each written as the designer's own program
(:func:`~spade_core.smallworld.language.design_reply`), played and rewarded like the samples, and trained on in the
designer's group with the current policy's logprobs as the sampler's. So a designer whose samples have collapsed
onto one design still sees what the designs one step away pay, and moves to one that pays more: the edge moves one
step at a time. ``no_hint_success_penalty`` overrides the designer's reward for a design that no hinted episode
solved (``RegretConfig``'s -0.5 makes a design beyond the agent's edge pay less than a trivial one).

Baselines, for the same number of trained agent episodes (one or two letters each: the table reports the tokens):

- ``uniform``: a designer that samples the design space uniformly: each iteration draws its designs uniformly from
  all of the family's designs (the policy's own prior would drift: agent updates move the shared weights, and an
  unrewarded designer's programs stop parsing);
- ``fixed``: no designer; each iteration draws its designs from a fixed pool of ``fixed_pool_size`` designs of the
  family, chosen once per run.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spade_core.designer.parsing import ExtractionError
from spade_core.gym_bridge import make_env, open_store
from spade_core.models.base import Generation, SamplingParams
from spade_core.plugins.backends import find_trainer_backend
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.specs import EpisodeSpec, RolloutConfig
from spade_core.rollout.trajectory import single_turn_trajectory
from spade_core.seeding import (
    small_world_designer_seed,
    small_world_edit_seed,
    small_world_episode_seed,
    small_world_held_out_seeds,
    small_world_rollout_seed,
)
from spade_core.smallworld.family import (
    CATEGORIES,
    FAMILIES,
    FAMILY,
    MODES,
    Design,
    all_designs,
    edge_designs,
    edit_design,
    module_source,
)
from spade_core.smallworld.language import design_reply, extract_design, opening
from spade_core.smallworld.policy import AGENT_HINT_PLACEMENT, AGENT_SYSTEM_PROMPT, designer_prompt_ids, reply_ids
from spade_core.training.advantages import AdvantageConfig, AdvantageEstimator
from spade_core.training.designer_reward import designer_reward
from spade_core.training.learnability import GATE_UNLEARNABLE, LearnabilityLedger
from spade_core.training.regret import ARMS as VIEWS
from spade_core.training.regret import (
    HintOnlyMemory,
    HintOnlyPlan,
    RegretConfig,
    arm_of,
    hint_only_wanted,
    regret_from_trajectories,
)
from spade_core.validation import ValidationConfig, validate_many
from spade_core.validation.pipeline import record_outcome
from spade_registry.records import Status, Trust

ARMS = ("defended", "undefended", "uniform", "fixed")
DESIGNED_ARMS = {"defended": "defended", "undefended": "regret"}
"""The arms where the policy designs, and the objective each is rewarded by."""
AGENT_MAX_NEW_TOKENS = {"relay": 4, "chain": 6}
"""An agent reply, per family: at most two letters (Chain: four) and the end of the turn."""
EXTRACTION_STAGE = "extraction"


@dataclass(frozen=True)
class WorldConfig:
    """Every knob of one small-world run."""

    arm: str = "defended"
    seed: int = 0
    family: str = FAMILY
    iterations: int = 12
    designs_per_iteration: int = 16  # the designer's group: with 8, one lucky draw decides where it goes first
    seeds_per_design: int = 12  # K: K hinted + K unhinted episodes per design (6: the no-hint-success gate often
    # penalises an edge design whose hinted success is still ~1/4 by chance, and the designer flees to trivial ones)
    fixed_pool_size: int = 6
    eval_seeds: int = 48  # per relay configuration
    eval_temperature: float = 1.0  # held-out success of the policy as it samples (0: greedy)
    learning_rate: float = 2e-3
    agent_epochs: int = 1  # optimiser steps on each iteration's agent batch (clipped ratio to the sampler's logprobs)
    agent_advantage: str = "dr_grpo"
    designer_advantage: str = "grpo"  # the designer's rewards are small and close together: scale by their spread
    objective: str | None = None  # the designer's reward (RegretConfig.objective); None: the arm's (DESIGNED_ARMS)
    learnability_weight: float = RegretConfig.learnability_weight  # the blend of regret and learnability
    learnability_gate: bool = False  # the learnability gate with claw-back on retirement (training.learnability)
    no_hint_success_penalty: float = RegretConfig.no_hint_success_penalty  # a design no hinted episode solved
    edit_share: float = 0.0  # designing arms: the share of each iteration's designs that are edits (module docstring)
    hint_only: HintOnlyPlan = HintOnlyPlan()  # the cheaper defences (training.regret): default, every seed
    train_on_hinted: bool = True
    temperature: float = 1.0
    designer_max_new_tokens: int = 10

    def __post_init__(self) -> None:
        if self.arm not in ARMS:
            raise ValueError(f"arm must be one of {ARMS}, got {self.arm!r}")
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {FAMILIES}, got {self.family!r}")
        if self.iterations < 1 or self.designs_per_iteration < 1 or self.seeds_per_design < 1:
            raise ValueError("iterations, designs_per_iteration and seeds_per_design must be >= 1")
        if not 0.0 <= self.edit_share < 1.0:
            raise ValueError(f"edit_share must be in [0, 1), got {self.edit_share} (the edits need samples)")
        if self.edit_share and self.arm not in DESIGNED_ARMS:
            raise ValueError(f"edit_share is a share of a designer's designs; arm {self.arm!r} has no designer")
        if not 1 <= self.fixed_pool_size <= len(all_designs(self.family)):
            raise ValueError(f"fixed_pool_size must be in 1..{len(all_designs(self.family))}, "
                             f"got {self.fixed_pool_size}")



@dataclass
class DesignOutcome:
    """One designer completion (or fixed-pool draw) through the pipeline."""

    text: str
    design: Design | None = None
    status: str = "accepted"  # accepted | failed at a stage (extraction, structure, ...)
    env_id: str | None = None
    regret: float | None = None
    reward: float | None = None
    gate: str | None = None
    hint_only: float | None = None  # the hint-only arm's success rate, when it was played
    edited: bool = False  # an edit of one of the designer's samples (WorldConfig.edit_share), not a sample

    @property
    def category(self) -> str:
        return self.design.category if self.design is not None and self.env_id else "invalid"


@dataclass
class IterationRecord:
    """What one iteration did, as plain data (``asdict`` gives the JSON the benchmark writes)."""

    iteration: int
    designs: list[dict[str, Any]] = field(default_factory=list)
    categories: dict[str, float] = field(default_factory=dict)
    mean_regret: float = 0.0
    mean_reward: float = 0.0
    success_hinted: float = 0.0
    success_unhinted: float = 0.0
    success_hint_only: float | None = None  # None: the hint-only arm was not played
    agent_episodes: int = 0  # every agent episode played, hint-only ones included
    hint_only_episodes: int = 0
    agent_tokens: int = 0  # completion tokens of every agent episode (hint-only ones included)
    cumulative_agent_tokens: int = 0
    held_out_success: float = 0.0
    held_out_by_band: dict[str, float] = field(default_factory=dict)
    held_out_before: float | None = None  # iteration 0 only: held-out success before any training (0 tokens)
    seconds: float = 0.0


class SmallWorld:
    """A small-world run in ``root`` (its registry store and policy copy live there)."""

    def __init__(self, config: WorldConfig, policy_dir: str | Path, root: str | Path,
                 validated: ValidatedFamily | None = None) -> None:
        self.config = config
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.store_path = str(self.root / "registry.sqlite3")
        if validated is not None:
            _copy_store(validated.store_path, self.store_path)
        self.store = open_store(self.store_path)
        objective = config.objective or DESIGNED_ARMS.get(config.arm, "regret")
        self.regret_config = RegretConfig(k=config.seeds_per_design, objective=objective,
                                          learnability_weight=config.learnability_weight,
                                          no_hint_success_penalty=config.no_hint_success_penalty)
        self.hint_only_memory = HintOnlyMemory(config.hint_only)
        self.ledger = LearnabilityLedger() if config.learnability_gate else None
        self.validation = ValidationConfig()
        self.trainer = find_trainer_backend("reference")(str(policy_dir), None, config={
            "learning_rate": config.learning_rate, "seed": config.seed, "max_completion_tokens": 8,
            "micro_batch_size": 64, "generator_max_batch_size": 128})
        self.generator = self.trainer.generator
        self.tokenizer = self.generator.tokenizer
        make = self._make_env
        self.runner = EpisodeRunner(self.generator, RolloutConfig(
            sampling=SamplingParams(max_new_tokens=AGENT_MAX_NEW_TOKENS[config.family], temperature=config.temperature),
            system_prompt=AGENT_SYSTEM_PROMPT, hint_placement=AGENT_HINT_PLACEMENT, max_concurrent_episodes=128,
            seed=config.seed), make_env=make)
        self.eval_runner = EpisodeRunner(self.generator, RolloutConfig(
            sampling=SamplingParams(max_new_tokens=AGENT_MAX_NEW_TOKENS[config.family],
                                    temperature=config.eval_temperature),
            system_prompt=AGENT_SYSTEM_PROMPT, max_concurrent_episodes=128, seed=config.seed), make_env=make)
        self.agent_advantages = AdvantageEstimator(AdvantageConfig(estimator=config.agent_advantage))
        self.designer_advantages = AdvantageEstimator(AdvantageConfig(estimator=config.designer_advantage))
        self.rng = random.Random(f"smallworld:{config.seed}")
        self.pool = {"fixed": self.rng.sample(all_designs(config.family), config.fixed_pool_size),
                     "uniform": all_designs(config.family)}.get(config.arm, [])  # a designing arm has no pool
        self.env_ids: dict[Design, str | None] = dict(validated.env_ids) if validated is not None else {}
        self.failures: dict[Design, str] = {}
        self.history: list[IterationRecord] = []
        self.tokens = 0
        self.held_out_ids = [self._environments([d])[0][0] for d in edge_designs(config.family)]

    # -- environments --------------------------------------------------------------------------------------------
    def _make_env(self, spec: EpisodeSpec) -> Any:
        return make_env(spec.env_id, store=self.store_path, **dict(spec.env_kwargs))

    def _environments(self, designs: list[Design]) -> list[tuple[str | None, str]]:
        """``(env_id or None, status)`` per design: new designs are validated and stored, known ones reused."""
        new = [d for d in dict.fromkeys(designs) if d not in self.env_ids]
        if new:
            sources = [module_source(d) for d in new]
            reports = validate_many([(d.name, s) for d, s in zip(new, sources)], workers=2, store=self.store,
                                    config=self.validation)
            for design, source, report in zip(new, sources, reports):
                report = record_outcome(self.store, source, report, provenance={"source": "smallworld"})
                if report.accepted:
                    self.env_ids[design] = report.env_id
                elif report.status == "duplicate" and report.failed_stage == "exact_duplicate":
                    ref = next(s.details.get("duplicate_of") for s in report.stages if s.stage == "exact_duplicate")
                    self.env_ids[design] = ref if self.store.get(ref).status_label == "accepted" else None
                else:
                    self.env_ids[design] = None
                    self.failures[design] = report.failed_stage or report.status
        return [(self.env_ids[d], "accepted" if self.env_ids[d] else self.failures.get(d, "failed")) for d in designs]

    # -- one iteration ---------------------------------------------------------------------------------------------
    def _design_phase(self, i: int) -> tuple[list[DesignOutcome], list[Any]]:
        """Designer completions (or fixed-pool draws) through extraction, validation and the store."""
        cfg = self.config
        if cfg.arm not in DESIGNED_ARMS:
            outcomes = [DesignOutcome("", self.rng.choice(self.pool)) for _ in range(cfg.designs_per_iteration)]
            generations: list[Any] = [None] * len(outcomes)
        else:
            prompt = designer_prompt_ids(self.tokenizer, cfg.family)
            edits = round(cfg.edit_share * cfg.designs_per_iteration)
            generations = self.generator.generate([prompt] * (cfg.designs_per_iteration - edits),
                                                  self.designer_sampling(i))
            outcomes = [self._extract(generation.text) for generation in generations]
            for design, generation in self._edits(i, prompt, [o.design for o in outcomes if o.design], edits):
                generations.append(generation)
                outcomes.append(DesignOutcome(opening(cfg.family) + generation.text, design, edited=True))
        valid = [o for o in outcomes if o.design is not None]
        for outcome, (env_id, status) in zip(valid, self._environments([o.design for o in valid])):
            outcome.env_id, outcome.status = env_id, status
        return outcomes, generations

    def _extract(self, completion: str) -> DesignOutcome:
        """A designer sample's design, or its extraction failure (recorded in the store)."""
        text = opening(self.config.family) + completion
        try:
            return DesignOutcome(text, extract_design(text))
        except ExtractionError as error:
            self.store.add(code=text, manifest={"domain": "smallworld"}, status=Status.FAILED, trust=Trust.DESIGNER,
                           failed_stage=EXTRACTION_STAGE, provenance={"source": "smallworld", "error": str(error)},
                           report={})
            return DesignOutcome(text, None, EXTRACTION_STAGE)

    def _edits(self, i: int, prompt: list[int], sampled: list[Design], count: int) -> list[tuple[Design, Generation]]:
        """``count`` one-knob edits of designs drawn from ``sampled`` (those in range; none: from the whole space),
        each as the designer's own program with the current policy's logprob of every token (the sampler's, for
        the clipped ratio: the designer is trained on them as on its samples)."""
        if count == 0:
            return []
        rng = random.Random(small_world_edit_seed(self.config.seed, i))
        bases = [d for d in sampled if d.in_range] or all_designs(self.config.family)
        distribution = self.designer_sampling(i).distribution
        designs = [edit_design(rng.choice(bases), rng) for _ in range(count)]
        draws = [Generation(list(prompt), reply_ids(self.tokenizer, text), text, distribution=distribution)
                 for text in map(design_reply, designs)]
        scored = [single_turn_trajectory(g.prompt_ids, g.completion_ids, [0.0] * len(g.completion_ids),
                                         distribution=distribution, role="designer", group_id="designer",
                                         episode_id=f"edit-{i}-{n}") for n, g in enumerate(draws)]
        for generation, logprobs in zip(draws, self.trainer.sequence_logprobs(scored)):
            generation.logprobs = logprobs[-len(generation.completion_ids):]
        return list(zip(designs, draws))

    def designer_sampling(self, i: int) -> SamplingParams:
        return SamplingParams(max_new_tokens=self.config.designer_max_new_tokens, temperature=self.config.temperature,
                              seed=small_world_designer_seed(self.config.seed, i))

    def iteration(self, i: int) -> IterationRecord:
        cfg = self.config
        started = time.perf_counter()
        outcomes, generations = self._design_phase(i)
        staged = cfg.hint_only.staged and self.regret_config.hint_only_arm
        views = VIEWS if self.regret_config.hint_only_arm and not staged else VIEWS[:2]
        specs, slot_of = self._episode_specs(i, outcomes, views)
        result = self.runner.run(specs, seed=small_world_rollout_seed(cfg.seed, i))
        trajectories, tokens = list(result.trajectories), result.stats.completion_tokens
        by_slot: dict[int, list[Any]] = {}
        for trajectory in trajectories:
            by_slot.setdefault(slot_of[trajectory.episode_id], []).append(trajectory)
        reused: dict[int, float] = {}
        if staged:
            extra, extra_tokens, reused = self._hint_only_phase(i, outcomes, by_slot)
            trajectories += extra
            tokens += extra_tokens
        estimates = {}
        for slot, outcome in enumerate(outcomes):
            if outcome.env_id is not None:
                estimate = estimates[slot] = regret_from_trajectories(
                    by_slot.get(slot, []), self.regret_config, reused_hint_only=reused.get(slot), plan=cfg.hint_only)
                outcome.regret, outcome.gate, outcome.hint_only = estimate.regret, estimate.gate, estimate.rates["hint_only"]
        if self.ledger is not None:
            self._record_plays(i, outcomes, estimates)
        for slot, outcome in enumerate(outcomes):
            outcome.reward = designer_reward(accepted=outcome.env_id is not None, status=outcome.status,
                                             estimate=estimates.get(slot), config=self.regret_config)
            if self.ledger is not None and outcome.env_id is not None:
                outcome.reward, gated = self.ledger.reward(outcome.env_id, outcome.reward)
                outcome.gate = GATE_UNLEARNABLE if gated else outcome.gate

        agent = [t for t in trajectories if not t.hint_only and (cfg.train_on_hinted or not t.hinted)]
        if agent:
            self._update(agent, self.agent_advantages, steps=cfg.agent_epochs)
        designer = []
        for n, (outcome, generation) in enumerate(zip(outcomes, generations)):
            if generation is None or not generation.completion_ids:
                continue
            designer.append(single_turn_trajectory(
                generation.prompt_ids, generation.completion_ids, generation.logprobs,
                distribution=self.designer_sampling(i).distribution, role="designer",
                group_id="designer", episode_id=f"designer-{i}-{n}", reward=float(outcome.reward or 0.0),
                success=outcome.env_id is not None))
        if designer:
            self._update(designer, self.designer_advantages)

        self.tokens += tokens
        record = IterationRecord(iteration=i, agent_tokens=tokens, cumulative_agent_tokens=self.tokens)
        record.designs = [{"design": o.design.label if o.design else None, "category": o.category,
                           "mode": MODES[o.design.mode] if o.design is not None and o.design.in_range else None,
                           "status": o.status, "regret": o.regret, "reward": o.reward, "gate": o.gate,
                           "hint_only": o.hint_only, "edited": o.edited} for o in outcomes]
        counts = Counter(o.category for o in outcomes)
        record.categories = {c: counts.get(c, 0) / len(outcomes) for c in (*CATEGORIES, "invalid")}
        played = [o for o in outcomes if o.regret is not None]
        record.mean_regret = _mean([o.regret for o in played])
        record.mean_reward = _mean([o.reward for o in outcomes if o.reward is not None])
        by_view = {view: [float(t.success) for t in trajectories if arm_of(t) == view] for view in VIEWS}
        record.success_hinted = _mean(by_view["hinted"])
        record.success_unhinted = _mean(by_view["unhinted"])
        record.success_hint_only = _mean(by_view["hint_only"]) if by_view["hint_only"] else None
        record.agent_episodes = len(trajectories)
        record.hint_only_episodes = len(by_view["hint_only"])
        record.held_out_success, record.held_out_by_band = self.evaluate()
        record.seconds = time.perf_counter() - started
        self.history.append(record)
        return record

    def _episode_specs(self, i: int, outcomes: list[DesignOutcome], views: tuple[str, ...],
                       seeds: int | None = None, slots: set[int] | None = None) -> tuple[list[EpisodeSpec], dict[str, int]]:
        """The episodes of every played design (or of ``slots``): ``seeds`` (default K) seeds, each in ``views``."""
        specs, slot_of = [], {}
        for slot, outcome in enumerate(outcomes):
            if outcome.env_id is None or (slots is not None and slot not in slots):
                continue
            for k in range(self.config.seeds_per_design if seeds is None else seeds):
                seed = small_world_episode_seed(self.config.seed, i, slot * self.config.seeds_per_design + k)
                for view in views:
                    episode_id = f"i{i}-slot{slot}-k{k}-{view}"
                    slot_of[episode_id] = slot
                    specs.append(EpisodeSpec(outcome.env_id, seed, hinted=view != "unhinted",
                                             hint_only=view == "hint_only", role="agent",
                                             group_id=f"{outcome.env_id}|{view}", episode_id=episode_id))
        return specs, slot_of

    def _hint_only_phase(self, i: int, outcomes: list[DesignOutcome],
                         by_slot: dict[int, list[Any]]) -> tuple[list[Any], int, dict[int, float]]:
        """The cheaper defences: the hint-only arm, after the paired rollouts, for the designs whose reward it can
        change (``margin``), on ``fraction`` of their seeds, or recalled (``reuse``).
        Returns its trajectories (added to ``by_slot``), their tokens and the recalled rates by slot."""
        cfg, regret, plan = self.config, self.regret_config, self.config.hint_only
        wanted, reused = set(), {}
        for slot, outcome in enumerate(outcomes):
            paired = regret_from_trajectories(by_slot.get(slot, []), regret)
            if outcome.env_id is None or not hint_only_wanted(paired, regret, plan):
                continue
            kept = self.hint_only_memory.recall(outcome.env_id, i) if plan.reuse else None
            if kept is None:
                wanted.add(slot)
            else:
                reused[slot] = kept
        if not wanted:
            return [], 0, reused
        specs, slot_of = self._episode_specs(i, outcomes, ("hint_only",), seeds=plan.seeds(cfg.seeds_per_design),
                                              slots=wanted)
        result = self.runner.run(specs, seed=small_world_rollout_seed(cfg.seed, i))
        played: dict[int, list[float]] = {}
        for trajectory in result.trajectories:
            slot = slot_of[trajectory.episode_id]
            by_slot.setdefault(slot, []).append(trajectory)
            if not trajectory.failed:
                played.setdefault(slot, []).append(float(trajectory.success))
        for slot, values in played.items():
            self.hint_only_memory.remember(outcomes[slot].env_id, i, _mean(values))
        return list(result.trajectories), result.stats.completion_tokens, reused

    def _record_plays(self, i: int, outcomes: list[DesignOutcome], estimates: dict[int, Any]) -> None:
        """The ledger's plays: each environment's unhinted success this iteration, over all its slots."""
        assert self.ledger is not None
        by_env: dict[str, list[float]] = {}
        for slot, estimate in estimates.items():
            if estimate.pairs:
                by_env.setdefault(outcomes[slot].env_id, []).append(estimate.unhinted_successes / estimate.pairs)
        for env_id, rates in by_env.items():
            self.ledger.record_play(env_id, i, _mean(rates))

    def _update(self, trajectories: list[Any], estimator: AdvantageEstimator, *, steps: int = 1) -> None:
        advantages = estimator.compute(trajectories)
        if any(a != 0.0 for a in advantages):  # nothing to learn from: no optimiser step (no stale momentum either)
            for _ in range(steps):
                self.trainer.update(trajectories, advantages)

    def evaluate(self) -> tuple[float, dict[str, float]]:
        """Unhinted success on held-out seeds of every relay configuration (overall and per band), sampled at
        ``eval_temperature``."""
        specs = [EpisodeSpec(env_id, seed, role="agent") for env_id in self.held_out_ids if env_id
                 for seed in small_world_held_out_seeds(self.config.eval_seeds)]
        result = self.eval_runner.run(specs, seed=0)
        per_band: dict[str, list[float]] = {}
        for trajectory in result.trajectories:
            per_band.setdefault(trajectory.env_id, []).append(float(trajectory.success))
        overall = [x for values in per_band.values() for x in values]
        return _mean(overall), {k: _mean(v) for k, v in sorted(per_band.items())}

    def run(self) -> list[IterationRecord]:
        before, _ = self.evaluate()
        for i in range(self.config.iterations):
            self.iteration(i)
        if self.history:
            self.history[0].held_out_before = before
        return self.history

    def close(self) -> None:
        self.store.close()


@dataclass(frozen=True)
class ValidatedFamily:
    """Every design of a family through the validation pipeline once, into a store that each run starts from a
    copy of (validation is deterministic in the source: the same verdicts, without paying for them every run)."""

    store_path: str
    env_ids: dict[Design, str | None]


def validate_family(family: str, root: str | Path) -> ValidatedFamily:
    """Validate and store every design of ``family`` in ``root``/registry.sqlite3."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    path = str(root / "registry.sqlite3")
    store = open_store(path)
    designs = all_designs(family)
    sources = [module_source(d) for d in designs]
    reports = validate_many([(d.name, s) for d, s in zip(designs, sources)], workers=2, store=store,
                            config=ValidationConfig())
    env_ids = {}
    for design, source, report in zip(designs, sources, reports):
        report = record_outcome(store, source, report, provenance={"source": "smallworld"})
        env_ids[design] = report.env_id if report.accepted else None
    return ValidatedFamily(path, env_ids)


def _copy_store(source: str, target: str) -> None:
    """A consistent copy of a SQLite store (its write-ahead log included), through SQLite's backup."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def run_world(config: WorldConfig, policy_dir: str | Path, root: str | Path,
              validated: ValidatedFamily | None = None) -> list[dict[str, Any]]:
    """Run one arm and return its iteration records as plain dicts (``validated``: start from that store)."""
    world = SmallWorld(config, policy_dir, root, validated)
    try:
        return [asdict(r) for r in world.run()]
    finally:
        world.close()


def _mean(values: list[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0
