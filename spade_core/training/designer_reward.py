"""The designer's reward for one candidate environment: its regret once accepted and played, else the validator's
verdict mapped onto the same gates as :mod:`spade_core.training.regret`.

- accepted and played this iteration: the regret estimate's ``reward`` (gated, shrunk; see ``regret``);
- accepted but not played this iteration (more accepted than ``agent.envs_per_iteration``): ``UNPLAYED_REWARD``;
- rejected as trivial (solved without the hint, or by a baseline policy): ``RegretConfig.trivial_reward``, as a
  played environment that every unhinted rollout solves;
- rejected as impossible (not solved even with the hint or by its reference solution):
  ``RegretConfig.no_hint_success_penalty``, as a played environment without a single hinted success;
- rejected as a duplicate of a pool environment: ``DUPLICATE_REWARD`` (valid code, no new environment);
- rejected at any other stage (the code does not meet the contract): ``RegretConfig.invalid_reward``.

Under another ``RegretConfig.objective`` (the ablations), a trivial candidate scores as unhinted success 1 and an
impossible one as success 0 under that objective; with ``"uniform"`` every completion gets 0, so the designer is
never trained and samples from its prior.
"""

from __future__ import annotations

from spade_core.training.regret import REGRET_OBJECTIVES, RegretConfig, RegretEstimate, objective_reward
from spade_registry.records import Status

UNPLAYED_REWARD = 0.0
DUPLICATE_REWARD = 0.0


def designer_reward(*, accepted: bool, status: Status | str, estimate: RegretEstimate | None, config: RegretConfig) -> float:
    """The reward of one designer completion whose candidate got ``status`` from the validator."""
    if config.objective == "uniform":
        return 0.0
    if accepted:
        return estimate.reward if estimate is not None else UNPLAYED_REWARD
    regret = config.objective in REGRET_OBJECTIVES
    if status == Status.TRIVIAL:
        return config.trivial_reward if regret else objective_reward(1.0, config)
    if status == Status.IMPOSSIBLE:
        return config.no_hint_success_penalty if regret else objective_reward(0.0, config)
    if status == Status.DUPLICATE:
        return DUPLICATE_REWARD
    return config.invalid_reward
