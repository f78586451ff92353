# expect: policy
# frame walk: generator gi_frame.f_back.f_globals (CVE-2023-37271 family)

ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        pass
        return "obs", {}

    def step(self, action):
        g = (x for x in [1])
        f = g.gi_frame.f_back.f_globals
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
