# expect: policy
# getattr of __class__-free paths never yields a metaclass
from fractions import Fraction

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        m = getattr(Fraction, 'register')
        m(Hostile)
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
