# expect: accepted
"""A harbour's water level at a given hour, to ten decimal places (checked within one part in a million)."""

import math
import re

ENV_SPEC = {
    "name": "TideHeight",
    "domain": "math",
    "description": "Evaluate a sinusoidal tide model at a given hour and report the water level to ten decimals.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"quarters": {"min": 0, "max": 3, "default": 3, "description": "quarter hours in the time"}},
    "grounding": "Harmonic tide prediction: mean sea level plus a cosine with the period of the tidal constituent.",
    "tags": ["trigonometry", "decimals", "tides"],
}

BOXED = re.compile(r"\\boxed\{([^{}]*)\}")


class TideHeight:
    def __init__(self, quarters=3):
        self.quarters = quarters
        self.answer = 0.0
        self.phase = 0.0

    def reset(self, rng, options):
        mean = rng.randint(20, 60) / 10
        amp = rng.randint(5, 40) / 10
        period = rng.randint(10, 14)
        hour = rng.randint(1, 23) + rng.randint(0, self.quarters) / 4
        self.phase = 2 * math.pi * hour / period
        self.answer = mean + amp * math.cos(self.phase)
        return (f"The water level in the harbour follows h(t) = M + A*cos(2*pi*t/T) metres with M = {mean}, "
                f"A = {amp} and T = {period} hours. Give h({hour}) to 10 decimal places as \\boxed{{value}}."), {}

    def step(self, action):
        found = BOXED.findall(action)
        if not found:
            return "No boxed answer.", 0.0, True, False, {"success": False, "format_error": "expected \\boxed{value}"}
        try:
            value = float(found[-1].strip())
        except ValueError:
            return "Not a number.", 0.0, True, False, {"success": False, "format_error": "not a number"}
        if not math.isfinite(value):
            return "Not a finite number.", 0.0, True, False, {"success": False, "format_error": "not finite"}
        ok = abs(value - self.answer) <= 1e-6
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return f"First compute the phase 2*pi*t/T = {self.phase:.3f} radians, then take its cosine."

    def reference_action(self):
        return f"\\boxed{{{self.answer:.10f}}}"
