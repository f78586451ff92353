# expect: policy
# frame walk: gi_frame via getattr with a computed name

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        g = (x for x in [1])
        f = getattr(g, 'gi_' + 'frame')
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
