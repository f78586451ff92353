"""A deterministic environment with deliberate failure modes triggered by the action (for error-path tests)."""

ENV_SPEC = {
    "name": "Flaky",
    "domain": "games",
    "description": "Counts steps; some actions misbehave on purpose.",
    "reward_range": [0, 1],
    "max_turns": 50,
}


class Flaky:
    def __init__(self):
        self.count = 0
        self.seed_value = 0

    def reset(self, rng, options):
        self.count = 0
        self.seed_value = rng.randint(0, 10 ** 6)
        return f"start {self.seed_value}", {}

    def step(self, action):
        if action == "hang":
            while True:
                pass
        if action == "hang-hard":
            while True:
                try:
                    while True:
                        pass
                except:  # noqa: E722 - deliberately swallows the timer
                    pass
        if action == "raise":
            raise KeyError("boom")
        if action == "set":
            return "obs", 0, False, False, {"bad": {1, 2}}
        self.count += 1
        return f"{self.seed_value}:{self.count}:{action}", 0.0, False, False, {"count": self.count}

    def privileged_hint(self):
        return str(self.seed_value % 7)

    def reference_action(self):
        return "go"
