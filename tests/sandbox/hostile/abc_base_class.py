# expect: policy
# a base class built by ABCMeta would run the metaclass on the environment's namespace
from fractions import Fraction

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        class Evil(Fraction):
            pass
        Evil(1)
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
