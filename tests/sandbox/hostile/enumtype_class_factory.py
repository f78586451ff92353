# expect: policy
# type(re.I) is RegexFlag, an enum class whose functional API builds new classes
import re

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        flag = type(re.I)
        flag('Evil', 'A B')
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
