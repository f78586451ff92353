"""A small multi-turn environment in the designer format, used by the core tests (not bundled)."""

ENV_SPEC = {
    "name": "CounterTest",
    "domain": "games",
    "description": "Say the next number; the target is drawn from the seed.",
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
    "difficulty": {"span": {"min": 2, "max": 50, "default": 5}},
}


class Counter:
    def __init__(self, span=5):
        self.span = span
        self.target = 1
        self.count = 0

    def reset(self, rng, options):
        self.target = rng.randint(2, self.span)
        self.count = 0
        return f"Count up to a hidden target between 2 and {self.span}; say the next number.", {}

    def step(self, action):
        if not action.strip().isdigit():
            return "Say a number.", 0.0, False, False, {"format_error": "not a number"}
        n = int(action.strip())
        if n != self.count + 1:
            return f"Expected {self.count + 1}.", 0.0, False, False, {"action_is_valid": False}
        self.count += 1
        done = self.count == self.target
        return f"Now at {self.count}.", 1.0 if done else 0.0, done, False, {"success": done}

    def privileged_hint(self):
        return "The target is odd." if self.target % 2 else "The target is even."

    def reference_action(self):
        return str(self.count + 1)
