# shape: numeric answer with a stated rounding and tolerance: mean, sample variance and sample standard deviation
# asked one step per turn, each "rounded to 2 decimal places (within 0.005 accepted)", with too high/too low feedback.
"""Summary statistics of a delegation's ages, one step per turn, each answer to 2 decimal places."""

import math
from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "DeputyAgeSpread",
    "domain": "math",
    "description": (
        "A delegation's ages are listed. Give, one per turn, the mean, the sample variance (divide by n - 1) and "
        "the sample standard deviation, each rounded to 2 decimal places (answers within 0.005 of the exact value "
        "are accepted). A wrong answer is told too high or too low; each step allows 3 tries."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 9,
    "players": 1,
    "difficulty": {
        "deputies": {"min": 4, "max": 12, "default": 6, "description": "how many ages are listed"},
        "spread": {"min": 5, "max": 30, "default": 15, "description": "half-width of the age range around the centre"},
    },
    "grounding": (
        "The Estates General of May 1789 and the National Assembly it became: delegations of deputies from each "
        "estate, whose ages (from young lawyers to elderly clergy) are the data summarised."
    ),
    "tags": ["statistics", "variance", "rounding", "multi-step"],
}

TRIES = 3
TOLERANCE = Fraction(1, 200)
ESTATES = ["clergy (First Estate)", "nobility (Second Estate)", "commons (Third Estate)"]
STEPS = ["the mean age", "the sample variance of the ages (sum of squared deviations divided by n - 1)",
         "the sample standard deviation of the ages (the square root of the sample variance)"]


class DeputyAgeSpread:
    def __init__(self, deputies=6, spread=15):
        self.n = deputies
        self.spread = spread
        self.ages = []
        self.estate = ESTATES[0]
        self.answers = []
        self.index = 0
        self.tries = 0
        self.done = False

    def reset(self, rng, options):
        self.estate = rng.choice(ESTATES)
        centre = rng.randint(38, 52)
        while True:
            ages = [rng.randint(centre - self.spread, centre + self.spread) for _ in range(self.n)]
            if len(set(ages)) >= 3:
                break
        self.ages = ages
        n = len(ages)
        mean = Fraction(sum(ages), n)
        var = sum((Fraction(a) - mean) ** 2 for a in ages) / (n - 1)
        self.answers = [mean, var, Fraction(math.sqrt(var))]
        self.index = 0
        self.tries = 0
        self.done = False
        obs = (
            f"Ages of the {n} deputies of a {self.estate} delegation: {', '.join(str(a) for a in ages)}.\n"
            "Answer each question as \\boxed{x}, rounded to 2 decimal places (any answer within 0.005 of the exact "
            f"value is accepted). You get {TRIES} tries per question.\n{self._question()}"
        )
        return obs, {"step": 0}

    def _question(self):
        return f"Question {self.index + 1}/3: what is {STEPS[self.index]}?"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number as \\boxed{{x}} (e.g. \\boxed{{12.34}}).\n{self._question()}"
            info = {"success": False, "format_error": "expected a number in \\boxed{}", "step": self.index}
            return obs, 0.0, False, False, info
        expected = self.answers[self.index]
        if abs(value - expected) <= TOLERANCE:
            self.index = self.index + 1
            self.tries = 0
            if self.index == 3:
                self.done = True
                return "Correct. All three statistics are right.", 1.0 / 3, True, False, {"success": True, "step": 3}
            return f"Correct.\n{self._question()}", 1.0 / 3, False, False, {"success": False, "step": self.index}
        self.tries = self.tries + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.tries >= TRIES:
            self.done = True
            return f"{note}. No tries left for this question.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {TRIES - self.tries} tries left.\n{self._question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        plans = [
            "Add the ages and divide by how many there are; keep the exact fraction for the next step.",
            "Subtract the exact mean from each age, square, add the squares, and divide by n - 1 (not n).",
            "Take the square root of the sample variance you found (not of the population variance), then round.",
        ]
        return plans[min(self.index, 2)]

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return f"\\boxed{{{float(self.answers[self.index]):.2f}}}"
