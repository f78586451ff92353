"""Single-turn arithmetic: base class with super().__init__(), properties, classmethods, math and fractions."""

import math
from fractions import Fraction

ENV_SPEC = {
    "name": "FractionQuiz",
    "domain": "math",
    "description": "Add two fractions and answer in lowest terms.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"max_denominator": {"min": 2, "max": 50, "default": 12}},
}


class QuizBase:
    def __init__(self, name):
        self.name = name
        self.asked = 0

    def describe(self):
        return f"[{self.name}]"


class FractionQuiz(QuizBase):
    def __init__(self, max_denominator=12):
        super().__init__("fractions")
        self.max_denominator = max_denominator
        self.a = Fraction(1, 2)
        self.b = Fraction(1, 3)

    @property
    def answer(self):
        return self.a + self.b

    @classmethod
    def format_fraction(cls, value):
        return f"{value.numerator}/{value.denominator}"

    def reset(self, rng, options):
        self.asked += 1
        d1 = rng.randint(2, self.max_denominator)
        d2 = rng.randint(2, self.max_denominator)
        self.a = Fraction(rng.randint(1, d1 - 1), d1)
        self.b = Fraction(rng.randint(1, d2 - 1), d2)
        question = f"{self.describe()} What is {self.format_fraction(self.a)} + {self.format_fraction(self.b)}?"
        return question, {"lcm": math.lcm(d1, d2)}

    def step(self, action):
        try:
            num, den = (int(part) for part in action.strip().split("/"))
            given = Fraction(num, den)
            ok = given == self.answer and math.gcd(num, den) == 1
        except (ValueError, ZeroDivisionError):
            return "Answer as n/d.", 0.0, True, False, {"format_error": "expected n/d", "success": False}
        return ("Correct." if ok else "Wrong."), float(ok), True, False, {"success": ok}

    def privileged_hint(self):
        return f"The common denominator is {math.lcm(self.a.denominator, self.b.denominator)}."

    def reference_action(self):
        return self.format_fraction(self.answer)
