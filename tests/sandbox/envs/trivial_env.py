"""The cheapest possible environment: used for the per-call overhead benchmark and health checks."""

ENV_SPEC = {
    "name": "Trivial",
    "domain": "games",
    "description": "Echo the action; the episode never ends by itself.",
    "reward_range": [0, 1],
    "max_turns": 1000,
}


class Trivial:
    def __init__(self):
        self.n = 0

    def reset(self, rng, options):
        self.n = 0
        return "ready", {}

    def step(self, action):
        self.n += 1
        return action, 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "a"
