# expect: policy
# type(len) is builtin_function_or_method, a class the sandbox does not hand out


ENV_SPEC = {"name": "Hostile", "domain": "games", "description": "attack", "reward_range": [0, 1], "max_turns": 5}


class Hostile:
    def reset(self, rng, options):
        return "obs", {}

    def step(self, action):
        type(len)(len)
        return "obs", 0.0, False, False, {}

    def privileged_hint(self):
        return "hint"

    def reference_action(self):
        return "a"
