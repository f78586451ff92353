# expect: policy
# guard shadowing via except-as name

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        try:
            pass
        except Exception as _getiter_:
            pass
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
