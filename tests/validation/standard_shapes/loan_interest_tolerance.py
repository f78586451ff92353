# shape: a numeric answer with a stated relative tolerance (within 0.5% of the exact amount)
"""Compound interest on a deposit; any answer within half a percent of the exact amount is accepted, as the task
says, so rounding to whole euros is right."""

import math
import re

ENV_SPEC = {
    "name": "CompoundInterestTolerance",
    "domain": "math",
    "description": "Compute a deposit's value after yearly compound interest; answers within 0.5% are accepted.",
    "reward_range": [0.0, 1.0],
    "max_turns": 2,
    "difficulty": {"years": {"min": 2, "max": 30, "default": 12, "description": "longest deposit in years"}},
    "grounding": "Compound interest: P * (1 + r)^n after n years at yearly rate r.",
    "tags": ["finance", "tolerance", "exponents"],
}

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
RELATIVE = 0.005


class CompoundInterestTolerance:
    def __init__(self, years=12):
        self.years_max = years
        self.principal = 1000
        self.rate = 3
        self.years = 2
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.principal = rng.randrange(500, 20001, 250)
        self.rate = rng.choice([1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7])
        self.years = rng.randint(2, self.years_max)
        return (f"{self.principal} euros are deposited at {self.rate}% interest compounded yearly. What is the "
                f"balance after {self.years} years, in euros? Answers within 0.5% of the exact value are accepted; "
                "reply with the number only. You have 2 tries."), {}

    def exact(self):
        return self.principal * (1 + self.rate / 100) ** self.years

    def step(self, action):
        self.turn = self.turn + 1
        found = NUMBER.fullmatch(action.strip().rstrip("."))
        value = float(found.group(0).replace(",", "")) if found else math.nan
        if not math.isfinite(value):
            info = {"success": False, "format_error": "expected one number"}
            return "Reply with one number.", 0.0, self.turn >= 2, False, info
        if abs(value - self.exact()) <= RELATIVE * self.exact():
            return "Correct.", 1.0, True, False, {"success": True}
        return "Incorrect.", 0.0, self.turn >= 2, False, {"success": False}

    def privileged_hint(self):
        return f"Multiply by the yearly growth factor {1 + self.rate / 100:g} once per year."

    def reference_action(self):
        return f"{self.exact():.2f}"
