"""On-policy by construction: every trajectory records the distribution it was sampled from, and both trainer
backends score its tokens under that distribution, so the first update's importance ratio is 1.

Checked for every role (agent seats of a two-player game, a multi-turn agent episode, the designer's first attempt
and its repair) under every sampling setting the shipped configs use, plus top-k (the rule's other half) and greedy
decoding, on CPU in fp32, for the reference and the TRL backends."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from training_envs import make_training_env

from spade_core.designer.loop import DesignConfig
from spade_core.models.base import SamplingParams, TokenDistribution
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig, Trajectory, generation_trajectory
from spade_core.selfplay.config import SelfPlayConfig
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import ReferenceTrainerConfig

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.yaml"))
TOLERANCE = 1e-3  # mean |trainer - sampler| logprob per trained token, and |ratio - 1|


def _merged(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        out[key] = _merged(out.get(key) or {}, value) if isinstance(value, dict) else value
    return out


def _sampling_sections(path: Path) -> list[tuple[str, dict]]:
    """The run configs a YAML file describes: a self-play config, or an ablation plan's base merged with each run."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if isinstance(data.get("base"), dict):
        runs = data.get("runs") or {}
        return [(f"{path.stem}.{name}", _merged(data["base"], run or {})) for name, run in runs.items()] or [
            (path.stem, data["base"])]
    return [(path.stem, data)]


def config_settings() -> dict[str, TokenDistribution]:
    """Each distinct (role, distribution) the self-play defaults and the shipped configs sample with."""
    defaults = SelfPlayConfig()
    design_top_p = DesignConfig(domain="math").top_p  # self-play's designer samples with DesignConfig's top-p
    found: dict[str, TokenDistribution] = {}
    for name, mapping in [("defaults", {}), *(item for path in CONFIGS for item in _sampling_sections(path))]:
        designer, agent = mapping.get("designer") or {}, mapping.get("agent") or {}
        found[f"{name}:designer"] = TokenDistribution(
            float(designer.get("temperature", defaults.designer.temperature)), int(designer.get("top_k", 0)),
            float(designer.get("top_p", design_top_p)))
        found[f"{name}:agent"] = TokenDistribution(
            float(agent.get("temperature", defaults.agent.temperature)), int(agent.get("top_k", 0)),
            float(agent.get("top_p", 1.0)))
    unique: dict[TokenDistribution, str] = {}
    for label, distribution in found.items():
        unique.setdefault(distribution, label)
    return {label: distribution for distribution, label in unique.items()}


SETTINGS = {**config_settings(), "top-k": TokenDistribution(0.7, 5, 0.9), "greedy": TokenDistribution(0.0, 0, 1.0)}


def test_the_shipped_configs_are_covered() -> None:
    assert CONFIGS, "configs/*.yaml not found"
    designer = [d for label, d in SETTINGS.items() if label.endswith(":designer")]
    assert designer and all(d.top_p < 1.0 and d.temperature != 1.0 for d in designer)  # truncated and tempered


def params(distribution: TokenDistribution, tokens: int) -> SamplingParams:
    return SamplingParams(max_new_tokens=tokens, temperature=distribution.temperature, top_k=distribution.top_k,
                          top_p=distribution.top_p)


def agent_trajectories(generator, distribution: TokenDistribution, seed: int) -> list[Trajectory]:
    """Both seats of a two-player game and a two-turn episode, sampled from ``distribution``."""
    config = RolloutConfig(sampling=params(distribution, 3), max_context_tokens=2048, seed=seed)
    runner = EpisodeRunner(generator, config, make_env=make_training_env)
    games = runner.run([EpisodeSpec("test/TwoSeatDigits", seed=k, group_id="seats") for k in range(2)]).trajectories
    turns = runner.run([EpisodeSpec("test/TwoTurnDigits", seed=k, group_id="two") for k in range(2)]).trajectories
    seats = {t.seat for t in games}
    assert seats == {0, 1}, f"expected both seats played, got {seats}"
    return [t for t in games + turns if t.trainable]


def designer_trajectories(generator, distribution: TokenDistribution, seed: int) -> list[Trajectory]:
    """A designer attempt and its repair (the repair's prompt holds the attempt and the validator's feedback)."""
    sampling = SamplingParams(**{**params(distribution, 12).__dict__, "seed": seed})
    messages = [{"role": "system", "content": "You write environments."},
                {"role": "user", "content": "Write a guessing game as a Python module."}]
    first = generator.chat([messages], sampling)[0]
    repair = [*messages, {"role": "assistant", "content": first.text},
              {"role": "user", "content": "structure: SyntaxError. Return the corrected module."}]
    second = generator.chat([repair], SamplingParams(**{**sampling.__dict__, "seed": seed + 1}))[0]
    out = [generation_trajectory(g, role="designer", group_id="designer", episode_id=f"designer-{n}")
           for n, g in enumerate((first, second))]
    assert all(t.distribution == distribution for t in out)
    return out


def signal(trajectories: list[Trajectory]) -> list[float]:
    return [1.0 if i % 2 else -1.0 for i in range(len(trajectories))]


def assert_on_policy(metrics: dict[str, float], where: str) -> None:
    assert metrics["sampler_logprob_abs_diff"] < TOLERANCE, (where, metrics)
    assert abs(metrics["ratio_mean"] - 1.0) < TOLERANCE, (where, metrics)


ROLES = {"agent": agent_trajectories, "designer": designer_trajectories}


@pytest.mark.parametrize("role", sorted(ROLES))
@pytest.mark.parametrize("label", sorted(SETTINGS))
def test_reference_first_update_is_on_policy(tiny_model_dir, label: str, role: str) -> None:
    distribution = SETTINGS[label]
    trainer = build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(device="cpu", precision="fp32"),
                                      learning_rate=1e-3, max_completion_tokens=16, micro_batch_size=2)
    trajectories = ROLES[role](trainer.generator, distribution, 1)
    assert all(t.distribution == distribution for t in trajectories)
    metrics = trainer.update(trajectories, signal(trajectories))
    assert_on_policy(metrics, f"{label}/{role}")
    assert metrics["clip_frac_low"] == 0.0 and metrics["clip_frac_high"] == 0.0
    assert metrics["optimizer_steps"] == 1.0 and metrics["grad_norm"] > 0


@pytest.mark.parametrize("role", sorted(ROLES))
@pytest.mark.parametrize("label", sorted(SETTINGS))
def test_trl_first_update_is_on_policy(tiny_model_dir, tmp_path, label: str, role: str) -> None:
    pytest.importorskip("trl", reason="the TRL backend needs trl (pip install 'spade-rl[trl]'); CI installs it")
    from spade_trainers.trl.backend import build_trl_trainer

    distribution = SETTINGS[label]
    trainer = build_trl_trainer(tiny_model_dir, config={
        "learning_rate": 1e-3, "max_completion_length": 64, "num_generations": 2, "per_device_train_batch_size": 2,
        "gradient_accumulation_steps": 8,
        "device": "cpu", "output_dir": str(tmp_path / "trl")})
    trajectories = ROLES[role](trainer.generator, distribution, 3)
    metrics = trainer.update(trajectories, signal(trajectories))
    assert_on_policy(metrics, f"{label}/{role}")
    assert metrics["optimizer_steps"] == 1.0 and metrics["grad_norm"] > 0  # one step: every ratio is on-policy
    assert metrics.get("trl/clip_ratio/region_mean", 0.0) == 0.0, metrics


def test_a_trajectory_keeps_its_distribution_through_json(tiny_generator) -> None:
    distribution = SETTINGS["top-k"]
    trajectory = agent_trajectories(tiny_generator, distribution, 5)[0]
    again = Trajectory.from_json(trajectory.to_json())
    assert again.distribution == distribution == trajectory.distribution


def test_untrainable_generations_say_why() -> None:
    from spade_core.models.base import Generation
    from spade_core.rollout import TrajectoryFormatError

    unknown = Generation([1, 2], [3], "x", [-0.1])  # e.g. a remote server: no distribution recorded
    with pytest.raises(TrajectoryFormatError, match="no sampling distribution"):
        generation_trajectory(unknown, role="designer", group_id="g", episode_id="e")
    with pytest.raises(TrajectoryFormatError, match="no completion tokens"):
        generation_trajectory(Generation([1], [], "", []), role="designer", group_id="g", episode_id="e")
