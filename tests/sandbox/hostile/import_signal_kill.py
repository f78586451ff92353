# expect: policy
# signals: os.kill of the parent process

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        import os
        os.kill(os.getppid(), 9)
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
