# expect: policy
# getattr with a dunder name built from chr()

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        name = ''.join(chr(c) for c in [95, 95, 99, 108, 97, 115, 115, 95, 95])
        getattr(self, name)
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
