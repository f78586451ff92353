# expect: accepted
"""A ferry crossing's duration in minutes; any answer within 0.05 minutes of the exact time is accepted, as the task
says, so the reference's six decimals and a shorter decimal inside that tolerance are both right."""

import math
import re

ENV_SPEC = {
    "name": "FerryCrossingMinutes",
    "domain": "math",
    "description": "Compute how many minutes a ferry crossing takes; answers within 0.05 minutes are accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"slowest": {"min": 8, "max": 20, "default": 12, "description": "slowest ferry speed in knots"}},
    "grounding": "Time = distance / speed: a crossing of d nautical miles at v knots takes 60 * d / v minutes.",
    "tags": ["rates", "tolerance", "decimals"],
}

BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
TOLERANCE = 0.05


class FerryCrossingMinutes:
    def __init__(self, slowest=12):
        self.slowest = slowest
        self.distance = 40
        self.speed = 15
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.distance = rng.randint(30, 90)
        self.speed = rng.randint(self.slowest, 23)
        return (f"A ferry crosses {self.distance} nautical miles at a steady {self.speed} knots. How many minutes "
                f"does the crossing take? Answers within {TOLERANCE} minutes are accepted. Reply as "
                "\\boxed{value}; you have 2 tries."), {}

    def minutes(self):
        return 60 * self.distance / self.speed

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
        if abs(value - self.minutes()) <= TOLERANCE:
            return "Correct.", 1.0, True, False, {"success": True}
        if self.turn >= 2:
            return "Incorrect; no tries left.", 0.0, True, False, {"success": False}
        return "Incorrect; one try left.", 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return f"The ferry covers {self.speed / 60:.4f} nautical miles a minute."

    def reference_action(self):
        return f"\\boxed{{{self.minutes():.6f}}}"
