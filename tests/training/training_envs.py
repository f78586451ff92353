"""Test-only environments for the training tests, in the designer format behind the real ``SpadeEnv``."""

from __future__ import annotations

import re

from spade_core.contract import EnvManifest, LocalInnerEnv, SpadeEnv
from spade_core.rollout import EpisodeSpec

FIRST_DIGIT_SPEC = {
    "name": "FirstDigit", "domain": "games", "description": "Reply with a number.",
    "reward_range": [0.0, 1.0], "max_turns": 1,
}
SECRET_SPEC = {
    "name": "SecretGuess", "domain": "games", "description": "Guess the secret digit.",
    "reward_range": [0.0, 1.0], "max_turns": 1,
}
TWO_TURN_SPEC = {
    "name": "TwoTurnDigits", "domain": "games", "description": "Reply with a number, twice.",
    "reward_range": [0.0, 1.0], "max_turns": 2,
}
TWO_SEAT_SPEC = {
    "name": "TwoSeatDigits", "domain": "games", "description": "Each player names a number; the larger wins.",
    "reward_range": [0.0, 1.0], "max_turns": 2, "players": 2,
}


class FirstDigit:
    """A learnable signal for a random tiny model: reward 1 when the reply starts with a digit (about 3% at
    random), so a working policy-gradient update must raise the success rate."""

    def reset(self, rng, options):
        return "Say a number.", {}

    def step(self, action):
        ok = action[:1].isdigit()
        return ("Yes." if ok else "No."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return "Start with a digit."

    def reference_action(self):
        return "7"


class SecretGuess:
    """The hint reveals the secret digit; without it a fixed guess wins only when the secret happens to match."""

    def __init__(self):
        self.secret = 0

    def reset(self, rng, options):
        self.secret = rng.randint(0, 9)
        return "Guess the secret digit (0-9).", {}

    def step(self, action):
        ok = action.strip() == str(self.secret)
        return ("Right." if ok else "Wrong."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return f"The secret is {self.secret}."

    def reference_action(self):
        return str(self.secret)


class TwoTurnDigits:
    """Two turns (so trajectories interleave generated and environment tokens); reward per digit-led reply."""

    def __init__(self):
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        return "Say a number.", {}

    def step(self, action):
        self.turn = self.turn + 1
        reward = 0.5 if action[:1].isdigit() else 0.0
        return f"Again ({self.turn}).", reward, self.turn >= 2, False, {"success": self.turn >= 2}

    def privileged_hint(self):
        return "Digits."

    def reference_action(self):
        return "1"


class TwoSeatDigits:
    """Two players, one move each (player 0, then player 1): every episode has a trajectory per seat."""

    def __init__(self):
        self.moves = []

    def reset(self, rng, options):
        self.moves = []
        return "Name a number.", {"player_id": 0}

    def step(self, action):
        self.moves.append(int(action[:1]) if action[:1].isdigit() else -1)
        if len(self.moves) < 2:
            return "Name a number.", 0.0, False, False, {"player_id": 1}
        winner = 0 if self.moves[0] >= self.moves[1] else 1
        return "Done.", 1.0, True, False, {"player_id": 1, "winner": winner, "rewards": [1.0 - winner, float(winner)]}

    def privileged_hint(self):
        return "Nine is the largest digit."

    def reference_action(self):
        return "9"


class BrokenHint(SecretGuess):
    """Plays fine, but computing the hint crashes: every hinted episode is an environment error."""

    def privileged_hint(self):
        raise RuntimeError("hint generator crashed")


CLASSES = {"test/BrokenHint": (SECRET_SPEC, BrokenHint), "test/FirstDigit": (FIRST_DIGIT_SPEC, FirstDigit), "test/SecretGuess": (SECRET_SPEC, SecretGuess),
           "test/TwoTurnDigits": (TWO_TURN_SPEC, TwoTurnDigits), "test/TwoSeatDigits": (TWO_SEAT_SPEC, TwoSeatDigits)}


def make_training_env(spec: EpisodeSpec) -> SpadeEnv:
    manifest_data, cls = CLASSES[spec.env_id]
    return SpadeEnv(EnvManifest.from_dict(manifest_data), lambda knobs: LocalInnerEnv(cls, knobs), env_id=spec.env_id)


def secret_of(seed: int) -> int:
    """The secret the environment draws for ``seed`` (read from the environment itself)."""
    env = make_training_env(EpisodeSpec("test/SecretGuess", seed=seed))
    env.reset(seed=seed, options={"hint": True})
    return int(re.search(r"\d", env.privileged_hint()).group())
