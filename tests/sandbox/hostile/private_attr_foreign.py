# expect: policy
# reading a private attribute of an allow-listed class
from fractions import Fraction


ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        x = Fraction(1, 2)._numerator
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
