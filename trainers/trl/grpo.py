"""TRL's ``GRPOTrainer`` with SPADE's rollouts: the subclass that keeps SPADE's advantages and the sampler's
logprobs, the rollout function that plays episodes with ``EpisodeRunner``, and the dataset rows that carry the
episode specs."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import torch

from spade_core.models.base import TokenDistribution
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.specs import EpisodeSpec
from spade_core.rollout.trajectory import Trajectory
from spade_core.training.advantages import AdvantageConfig, AdvantageEstimator
from spade_core.training.errors import TrainingConfigError, TrainingInputError
from spade_trainers.trl.scoring import truncated_logprobs
from spade_trainers.trl.sequences import ADVANTAGE_FIELD, TRLSequence, rollout_output

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is "experimental" in TRL 1.16; we rely on it


def import_trl() -> Any:
    try:
        import trl
    except ImportError as exc:
        raise TrainingConfigError(
            "the trl trainer backend needs the `trl` package: pip install 'spade-rl[trl]' (trl>=1.16,<1.17)"
        ) from exc
    return trl




def grpo_trainer_class() -> type:
    """``SpadeGRPOTrainer`` (defined lazily so that importing this module does not import trl)."""
    global _SPADE_GRPO_TRAINER
    if _SPADE_GRPO_TRAINER is not None:
        return _SPADE_GRPO_TRAINER
    trl = import_trl()

    class SpadeGRPOTrainer(trl.GRPOTrainer):
        """``GRPOTrainer`` whose rollout batches carry SPADE's advantages and the sampler's logprobs.

        TRL normalises rewards per prompt group (``rewards.view(-1, num_generations)``) inside
        ``_generate_and_score_completions``; SPADE computes advantages per role (a designer's regret and an agent's
        task reward never share a statistic) in the core. When the rollout rows carry ``spade_advantage``, this
        override replaces TRL's advantages by them and TRL's old-policy logprobs by the sampler's (masked to the
        ``env_mask == 1`` tokens), so the clipped ratio is taken against the policy that actually sampled.
        """

        def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
            output = super()._generate_and_score_completions(inputs)
            if not inputs or ADVANTAGE_FIELD not in inputs[0]:
                return output  # a plain TRL rollout: keep TRL's behaviour
            device = output["completion_ids"].device
            output["advantages"] = torch.tensor([float(row[ADVANTAGE_FIELD]) for row in inputs],
                                                dtype=torch.float32, device=device)
            mask = output["completion_mask"]
            if "tool_mask" in output:
                mask = mask * output["tool_mask"]
            sampler = output.get("sampling_per_token_logps")
            if sampler is None:
                raise TrainingInputError("the rollout function returned no logprobs; SPADE needs the sampler's")
            output["old_per_token_logps"] = torch.nan_to_num(sampler, nan=0.0) * mask
            return output

        # the distribution completions are scored under when it truncates (top-k / top-p); None: TRL's fused head
        spade_distribution: TokenDistribution | None = None

        def _get_per_token_logps_and_entropies(self, model: Any, input_ids: torch.Tensor,
                                               attention_mask: torch.Tensor, logits_to_keep: int,
                                               batch_size: int | None = None, compute_entropy: bool = False,
                                               compute_aux_loss: bool = False, **inputs: Any) -> Any:
            """TRL's per-token logprobs, or under a truncated sampling distribution SPADE's rule
            (:func:`spade_core.models.distribution.token_logprobs`): TRL's fused head knows only a temperature."""
            distribution = self.spade_distribution
            extra = any(value is not None for value in inputs.values())
            if distribution is None or extra or compute_aux_loss:
                return super()._get_per_token_logps_and_entropies(
                    model, input_ids, attention_mask, logits_to_keep, batch_size=batch_size,
                    compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss, **inputs)
            return truncated_logprobs(model, input_ids, attention_mask, logits_to_keep, distribution,
                                      batch_size=batch_size or input_ids.size(0), compute_entropy=compute_entropy,
                                      autocast=self.accelerator.autocast)

    _SPADE_GRPO_TRAINER = SpadeGRPOTrainer
    return SpadeGRPOTrainer


_SPADE_GRPO_TRAINER: type | None = None


def spade_grpo_trainer_class() -> type:
    """The ``trl.GRPOTrainer`` subclass SPADE trains with (imports trl)."""
    return grpo_trainer_class()


def episode_prompt(spec: EpisodeSpec) -> str:
    """A dataset ``prompt`` naming one episode (TRL hands only prompts to the rollout function)."""
    data: dict[str, Any] = {"env_id": spec.env_id, "seed": spec.seed}
    if spec.hinted:
        data["hinted"] = True
    if spec.role != "agent":
        data["role"] = spec.role
    if spec.env_kwargs:
        data["env_kwargs"] = dict(spec.env_kwargs)
    return json.dumps(data, sort_keys=True)


def episode_dataset(specs: Sequence[EpisodeSpec]) -> Any:
    """A ``datasets.Dataset`` with one ``prompt`` per episode spec, for ``GRPOTrainer(train_dataset=...)``."""
    from datasets import Dataset

    if not specs:
        raise TrainingInputError("episode_dataset: no episode specs")
    return Dataset.from_dict({"prompt": [episode_prompt(s) for s in specs]})


def spec_from_prompt(prompt: Any, *, group_id: str, episode_id: str) -> EpisodeSpec:
    """Parse a prompt written by :func:`episode_prompt` (or a bare environment id, seed 0)."""
    if not isinstance(prompt, str):
        raise TrainingInputError(
            f"rollout prompt must be a string from episode_prompt() (JSON) or an environment id, got {type(prompt)!r}"
        )
    text = prompt.strip()
    if not text.startswith("{"):
        return EpisodeSpec(text, seed=0, group_id=group_id, episode_id=episode_id)
    try:
        data = json.loads(text)
        return EpisodeSpec(str(data["env_id"]), seed=int(data.get("seed", 0)), hinted=bool(data.get("hinted", False)),
                           role=str(data.get("role", "agent")), group_id=group_id,
                           env_kwargs=dict(data.get("env_kwargs") or {}), episode_id=episode_id)
    except (ValueError, KeyError, TypeError) as exc:
        raise TrainingInputError(f"rollout prompt {text[:80]!r} is not an episode_prompt() JSON: {exc}") from exc


class SpadeRolloutFunc:
    """A TRL ``rollout_func`` that plays one SPADE episode per prompt with an :class:`EpisodeRunner`.

    TRL passes the prompts of one generation batch, each repeated ``num_generations`` (G) times in a row; the
    ``i``-th block of G prompts is one GRPO group. Each prompt yields the trajectory of ``seat`` (multi-player
    games play every seat with the same policy; the other seats' trajectories are not trained in this path).
    Advantages come from SPADE's :class:`AdvantageEstimator` (per role, group and seat; EMA state kept across calls).
    The latest trajectories, advantages and rollout stats are kept on the object for inspection and logging.
    """

    def __init__(self, runner: EpisodeRunner, *, advantages: AdvantageEstimator | AdvantageConfig | None = None,
                 seat: int = 0) -> None:
        self.runner = runner
        if isinstance(advantages, AdvantageEstimator):
            self.estimator = advantages
        else:
            self.estimator = AdvantageEstimator(advantages or AdvantageConfig())
        self.seat = seat
        self.calls = 0
        self.last_trajectories: list[Trajectory] = []
        self.last_advantages: list[float] = []
        self.last_stats: dict[str, float] = {}

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        group_size = trainer.num_generations if trainer.model.training else trainer.num_generations_eval
        if len(prompts) % group_size:
            raise TrainingInputError(f"rollout: {len(prompts)} prompts is not a multiple of num_generations={group_size}")
        call = self.calls
        self.calls += 1
        specs = [spec_from_prompt(p, group_id=f"trl:{call}:{i // group_size}", episode_id=f"trl:{call}:{i}")
                 for i, p in enumerate(prompts)]
        result = self.runner.run(specs)
        by_episode: dict[str, list[Trajectory]] = defaultdict(list)
        for trajectory in result.trajectories:
            by_episode[trajectory.episode_id].append(trajectory)
        chosen = []
        for spec in specs:
            seats = by_episode.get(spec.episode_id or "", [])
            if not seats:
                raise TrainingInputError(f"rollout: the episode runner returned no trajectory for {spec.episode_id}")
            chosen.append(next((t for t in seats if t.seat == self.seat), seats[0]))
        advantages = self.estimator.compute(chosen)
        pad = trainer.processing_class.pad_token_id
        pad = int(pad if pad is not None else trainer.processing_class.eos_token_id)
        sequences = [TRLSequence.from_trajectory(t, a, pad_token_id=pad) for t, a in zip(chosen, advantages)]
        self.last_trajectories, self.last_advantages = chosen, list(advantages)
        self.last_stats = result.stats.as_dict()
        return rollout_output(sequences)


def make_rollout_func(runner: EpisodeRunner, *, advantages: AdvantageEstimator | AdvantageConfig | None = None,
                      seat: int = 0) -> SpadeRolloutFunc:
    """A TRL ``rollout_func`` driving SPADE's episode runner (see :class:`SpadeRolloutFunc`)."""
    return SpadeRolloutFunc(runner, advantages=advantages, seat=seat)


# --------------------------------------------------------------------------------------------------------------
