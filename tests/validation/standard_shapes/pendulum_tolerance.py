# shape: a numeric answer with a stated tolerance (within 0.01), given by the reference to six decimals
"""The period of a simple pendulum; any answer within 0.01 s of the true value is accepted, as the task says, so a
shorter decimal inside that tolerance is also right."""

import math
import re

ENV_SPEC = {
    "name": "PendulumPeriodTolerance",
    "domain": "math",
    "description": "Compute a simple pendulum's period from its length; answers within 0.01 s are accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"digits": {"min": 1, "max": 3, "default": 2, "description": "decimals in the length"}},
    "grounding": "Small-angle pendulum: T = 2*pi*sqrt(L/g) with g = 9.81 m/s^2.",
    "tags": ["physics", "tolerance", "decimals"],
}

BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
TOLERANCE = 0.01


class PendulumPeriodTolerance:
    def __init__(self, digits=2):
        self.digits = digits
        self.length = 1.0
        self.answer = 0.0
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.length = round(rng.randint(10, 1500) / 100 + rng.randint(0, 9) / 10 ** (self.digits + 1), 4)
        self.answer = 2 * math.pi * math.sqrt(self.length / 9.81)
        return (f"A simple pendulum is {self.length} m long; take g = 9.81 m/s^2. What is its period in seconds? "
                f"Answers within {TOLERANCE} s are accepted. Reply as \\boxed{{value}}; you have 2 tries."), {}

    def step(self, action):
        self.turn = self.turn + 1
        found = BOXED.findall(action)
        try:
            value = float(found[-1].strip()) if found else None
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            info = {"success": False, "format_error": "expected \\boxed{number}"}
            return "Reply with one number as \\boxed{value}.", 0.0, self.turn >= 2, False, info
        if abs(value - self.answer) <= TOLERANCE:
            return "Correct.", 1.0, True, False, {"success": True}
        if self.turn >= 2:
            return "Incorrect; no tries left.", 0.0, True, False, {"success": False}
        return "Incorrect; one try left.", 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return f"First divide the length by g: L/g = {self.length / 9.81:.2f} s^2; the period is 2*pi times its root."

    def reference_action(self):
        return f"\\boxed{{{self.answer:.6f}}}"
