# expect: policy
# frame walk: tb_frame reached with getattr

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        try:
            1 / 0
        except ZeroDivisionError as e:
            tb = getattr(e, '__trace' + 'back__')
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
