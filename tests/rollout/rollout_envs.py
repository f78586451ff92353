"""Test-only environments in the designer format, wrapped in the real ``SpadeEnv`` (not bundled)."""

from __future__ import annotations

import re

from spade_core.contract import EnvManifest, LocalInnerEnv, SpadeEnv
from spade_core.rollout import EpisodeSpec

THREE_TURNS_SPEC = {
    "name": "ThreeTurns", "domain": "games", "description": "Say anything three times.",
    "reward_range": [0.0, 1.0], "max_turns": 3,
}


class ThreeTurns:
    """Three turns; observation k is ``OBS-k``; reward 1/3 per non-empty reply; the hint names the turn."""

    def __init__(self, mode="ok"):
        self.mode = mode
        self.turn = 0

    def reset(self, rng, options):
        if self.mode == "raise_reset":
            raise RuntimeError("reset exploded")
        self.turn = 0
        return "OBS-0", {}

    def step(self, action):
        self.turn = self.turn + 1
        if self.mode == "bad_reward" and self.turn == 2:
            return "OBS-bad", 7.0, False, False, {}  # outside reward_range: a contract breach
        if self.mode == "raise_step":
            raise ValueError("step exploded")
        done = self.turn >= 3
        reward = 1.0 / 3.0 if action.strip() else 0.0
        return f"OBS-{self.turn}", reward, done, False, {"success": done}

    def privileged_hint(self):
        return f"HINT-{self.turn}"

    def reference_action(self):
        return "ok"


def make_test_env(spec: EpisodeSpec) -> SpadeEnv:
    """The runner's ``make_env`` for test ids; anything else goes through ``gymnasium.make``."""
    import gymnasium as gym

    if spec.env_id == "test/ThreeTurns":
        manifest = EnvManifest.from_dict(THREE_TURNS_SPEC)
        mode = dict(spec.env_kwargs)  # the test's failure mode, passed to the inner class (not a manifest knob)
        return SpadeEnv(manifest, lambda knobs: LocalInnerEnv(ThreeTurns, mode), env_id=spec.env_id)
    return gym.make(spec.env_id, **dict(spec.env_kwargs))


def first_free_cell(prompt_text: str) -> str:
    """A scripted tic-tac-toe policy: the lowest free cell of the last board in the prompt."""
    board = prompt_text[prompt_text.rindex("Board"):]
    rows = [line for line in board.splitlines()[1:6] if "|" in line]
    cells = [c.strip() for row in rows for c in row.split("|")]
    free = [c for c in cells if re.fullmatch(r"[1-9]", c)]
    return free[0]
