"""A trusted environment whose step is quick, except the action ``slow``, which takes ``delay_s`` seconds: for fair
sharing of ``spade serve`` between clients that send slow actions and clients that do not (not bundled)."""

import time

ENV_SPEC = {
    "name": "SlowActionTest",
    "domain": "games",
    "description": "Say anything; the action 'slow' takes a while.",
    "reward_range": [0.0, 1.0],
    "max_turns": 50,
    "difficulty": {"delay_s": {"min": 0, "max": 60, "default": 2}},
}


class SlowAction:
    def __init__(self, delay_s=2):
        self.delay_s = delay_s
        self.turns = 0

    def reset(self, rng, options):
        self.turns = 0
        return "Say anything.", {}

    def step(self, action):
        if action == "slow":
            time.sleep(self.delay_s)
        self.turns += 1
        done = self.turns >= 20
        return f"Turn {self.turns}.", 1.0 if done else 0.0, done, False, {"success": done}

    def privileged_hint(self):
        return "Any reply works."

    def reference_action(self):
        return "ok"
