# expect: policy
# type(Fraction) is ABCMeta: calling it would build a class from an arbitrary namespace
from fractions import Fraction

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        meta = type(Fraction)
        meta('Evil', (), {'x': 1})
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
