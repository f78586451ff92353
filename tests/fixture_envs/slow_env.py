"""A trusted environment whose every step takes ``delay_s`` seconds: for per-step time limits (not bundled)."""

import time

ENV_SPEC = {
    "name": "SlowStepTest",
    "domain": "games",
    "description": "Say anything; each step takes a while.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"delay_s": {"min": 0, "max": 60, "default": 3}},
}


class SlowStep:
    def __init__(self, delay_s=3):
        self.delay_s = delay_s

    def reset(self, rng, options):
        return "Say anything.", {}

    def step(self, action):
        time.sleep(self.delay_s)
        return "Done.", 1.0, True, False, {"success": True}

    def privileged_hint(self):
        return "Any reply works."

    def reference_action(self):
        return "ok"
