# expect: policy
# huge outputs: an 8 MiB observation returned to the host (over the test pool's 4 MiB reply limit)

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        return 'x' * (8 * 1024 * 1024), 0.0, False, False, {}
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
