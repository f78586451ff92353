# shape: a multiple-choice answer (one of four options A-D)
"""Which of four fractions is largest? The answer is one letter of four; the correct letter's position varies by
seed."""

from fractions import Fraction

ENV_SPEC = {
    "name": "LargestFractionChoice",
    "domain": "math",
    "description": "Pick the largest of four fractions (options A to D).",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"denominator": {"min": 5, "max": 60, "default": 20, "description": "largest denominator"}},
    "grounding": "Comparing fractions: a/b > c/d exactly when a*d > c*b (b, d positive).",
    "tags": ["fractions", "multiple-choice", "comparison"],
}

LETTERS = "ABCD"


class LargestFractionChoice:
    def __init__(self, denominator=20):
        self.denominator = denominator
        self.options = []

    def reset(self, rng, options):
        self.options = []
        while len(self.options) < 4:
            d = rng.randint(3, self.denominator)
            f = Fraction(rng.randint(1, d - 1), d)
            if f not in self.options:
                self.options.append(f)
        listing = "  ".join(f"{LETTERS[i]}) {f.numerator}/{f.denominator}" for i, f in enumerate(self.options))
        return f"Which fraction is the largest?\n{listing}\nAnswer with one letter (A, B, C or D).", {}

    def step(self, action):
        letter = action.strip().strip(".)").upper()
        if letter not in tuple(LETTERS):
            return "Answer A, B, C or D.", 0.0, True, False, {"success": False, "format_error": "expected A-D"}
        ok = self.options[LETTERS.index(letter)] == max(self.options)
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return "Cross-multiply two fractions at a time and keep the larger one."

    def reference_action(self):
        return LETTERS[self.options.index(max(self.options))]
