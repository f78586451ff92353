# expect: policy
# unbound dict.update on a shared tool table
from spade_tools.calculator import Calculator

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        dict.update(Calculator.TOOL_DEFS[0].parameters, {'injected': 1})
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
