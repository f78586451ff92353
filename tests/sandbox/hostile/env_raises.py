# expect: exception
# control: the environment code raises an ordinary exception

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        raise ValueError('bad action')
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
