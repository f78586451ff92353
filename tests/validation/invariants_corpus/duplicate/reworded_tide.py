# expect: novelty
# twin: tide_height
# flaw: TideHeight with every identifier renamed and all text reworded
"""Sea level at a port at some time of day, ten decimals."""

import math
import re

ENV_SPEC = {
    "name": "PortLevel",
    "domain": "math",
    "description": "Evaluate a sinusoidal tide model at a given moment and report the water level to ten decimals.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"steps": {"min": 0, "max": 3, "default": 3, "description": "quarter moments in the time"}},
    "grounding": "Harmonic tide prediction: base sea level plus a cosine with the cycle of the tidal constituent.",
    "tags": ["trigonometry", "decimals", "tides"],
}

BOX = re.compile(r"\\boxed\{([^{}]*)\}")


class PortLevel:
    def __init__(self, steps=3):
        self.steps = steps
        self.level = 0.0
        self.angle = 0.0

    def reset(self, rng, options):
        base = rng.randint(20, 60) / 10
        swing = rng.randint(5, 40) / 10
        cycle = rng.randint(10, 14)
        moment = rng.randint(1, 23) + rng.randint(0, self.steps) / 4
        self.angle = 2 * math.pi * moment / cycle
        self.level = base + swing * math.cos(self.angle)
        return (f"Sea level at the quay is modelled as L(x) = B + C*cos(2*pi*x/P) in metres, where B = {base}, "
                f"C = {swing}, P = {cycle} h. Report L({moment}) with ten decimals inside \\boxed{{number}}."), {}

    def step(self, action):
        boxes = BOX.findall(action)
        if not boxes:
            return "Put the number in a box.", 0.0, True, False, {"success": False, "format_error": "expected \\boxed{number}"}
        try:
            number = float(boxes[-1].strip())
        except ValueError:
            return "That is not numeric.", 0.0, True, False, {"success": False, "format_error": "not a number"}
        if not math.isfinite(number):
            return "That is not finite.", 0.0, True, False, {"success": False, "format_error": "not finite"}
        ok = abs(number - self.level) <= 1e-6
        return ("Right level." if ok else "Wrong level."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return f"Begin with the angle 2*pi*x/P, about {self.angle:.3f} rad, and apply the cosine."

    def reference_action(self):
        return f"\\boxed{{{self.level:.10f}}}"
