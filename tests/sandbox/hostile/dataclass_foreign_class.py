# expect: policy
# dataclass() on a class the environment did not define would rewrite a shared class
from dataclasses import dataclass
from fractions import Fraction

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        dataclass(Fraction)
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
