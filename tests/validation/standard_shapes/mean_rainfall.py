# shape: a decimal answer given by the reference to two places with no tolerance stated; the verifier accepts one unit of the last place either way (a rounding either way is right)
"""The mean of a week's rainfall readings. The mean of seven tenths is rarely a short decimal, so the reference
rounds it to two places and the verifier accepts anything within a hundredth of the exact mean."""

import re

ENV_SPEC = {
    "name": "MeanRainfall",
    "domain": "math",
    "description": "Average a week of daily rainfall readings in millimetres.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"wettest": {"min": 5, "max": 80, "default": 30, "description": "largest daily reading in mm"}},
    "grounding": "The arithmetic mean of n readings is their sum divided by n.",
    "tags": ["statistics", "mean", "decimals"],
}

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
NUMBER = re.compile(r"^\s*(?:\\boxed\{)?\s*(-?\d+(?:\.\d+)?)\s*(?:mm)?\s*\}?\s*\.?\s*$")


class MeanRainfall:
    def __init__(self, wettest=30):
        self.wettest = wettest
        self.tenths = []

    def reset(self, rng, options):
        self.tenths = [rng.randint(0, self.wettest * 10) for _ in DAYS]
        lines = "\n".join(f"  {day}: {t / 10:.1f} mm" for day, t in zip(DAYS, self.tenths))
        return ("Daily rainfall last week:\n" + lines + "\nWhat was the mean daily rainfall in mm? "
                "Answer with a number, e.g. 4.57."), {}

    def exact(self):
        return sum(self.tenths) / 70

    def step(self, action):
        found = NUMBER.match(action)
        if found is None:
            return "Answer with one number of millimetres.", 0.0, True, False, {
                "success": False, "format_error": "expected a number such as 4.57"}
        ok = abs(float(found.group(1)) - self.exact()) <= 0.01
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return f"The seven readings add up to {sum(self.tenths) / 10:.1f} mm; divide that by 7."

    def reference_action(self):
        return f"{self.exact():.2f}"
