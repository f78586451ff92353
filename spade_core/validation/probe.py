"""The probe model's three arms and where a probe comes from.

Some properties only a model can judge: a hint that carries the answer in an encoding no decoder knows, a fact that
only the hint gives. The general test is behavioural. A capable probe plays a few seeds **unhinted**, **hinted** and
**hint-only**: the hint without the task (:class:`HintOnly` hides every observation and the info the agent would
read, and leaves the hint). Success from the hint alone shows the hint carries the answer in whatever encoding the
probe reads; a capable probe that never succeeds without the hint while it nearly always does with it shows the
hint is the only way in. The calibration stage (:mod:`.calibration`) turns the three rates into verdicts.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from spade_core.contract.env import HINT_OPTION, SpadeEnv

HIDDEN_TASK = ("(The task is hidden in this episode: you see only the hint. Act on the hint alone; reply with the "
               "action it suggests.)")
"""What a hint-only episode shows in place of every observation."""

KEPT_INFO = (HINT_OPTION, "success", "player_id", "turn")
"""Info keys a hint-only episode keeps (the verdict, whose turn, the hint); the rest may describe the task."""

UNCHECKED = ("hint leaks in encodings the decoders do not read", "information only the hint gives (a fact or "
             "convention the task never shows)")
"""The classes only a probe model checks; a report without a probe names them as unchecked."""


class HintOnly(gym.Wrapper):
    """The candidate with its task hidden: every observation replaced by :data:`HIDDEN_TASK`, the info reduced to
    :data:`KEPT_INFO`. The hint (``reset(options={HINT_OPTION: True})`` and ``privileged_hint()``) is left as is."""

    def __init__(self, env: SpadeEnv) -> None:
        super().__init__(env)
        self.spade_env = env

    @property
    def turn(self) -> int:
        return self.spade_env.turn

    @property
    def done(self) -> bool:
        return self.spade_env.done

    def privileged_hint(self) -> str:
        return self.spade_env.privileged_hint()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        _, info = self.env.reset(seed=seed, options=options)
        return HIDDEN_TASK, _kept(info)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        _, reward, terminated, truncated, info = self.env.step(action)
        return HIDDEN_TASK, reward, terminated, truncated, _kept(info)


def _kept(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k in KEPT_INFO}
