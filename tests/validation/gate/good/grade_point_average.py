# expect: accepted
"""Credit-weighted grade point average from a transcript, in three checked steps."""

from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "GradePointAverage",
    "domain": "math",
    "description": (
        "A transcript lists courses with credit hours and letter grades. Give the total credits, the total "
        "quality points (credits times grade points), then the GPA rounded to two decimals."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 9,
    "players": 1,
    "difficulty": {
        "courses": {"min": 3, "max": 8, "default": 5, "description": "courses on the transcript"},
    },
    "grounding": (
        "A grade point average is a weighted mean: each course's grade points (A = 4.0, A- = 3.7, B+ = 3.3, "
        "B = 3.0, B- = 2.7, C+ = 2.3, C = 2.0, D = 1.0) weighted by its credit hours, divided by total credits."
    ),
    "tags": ["statistics", "weighted-mean", "multi-step"],
}

GRADES = {"A": 40, "A-": 37, "B+": 33, "B": 30, "B-": 27, "C+": 23, "C": 20, "D": 10}
SUBJECTS = ["Algebra", "Biology", "Chemistry", "Drawing", "Economics", "French", "Geology", "History", "Latin"]
TRIES = 3


def fmt(x):
    if x.denominator == 1:
        return str(x.numerator)
    return f"{float(x):.2f}".rstrip("0")


class GradePointAverage:
    def __init__(self, courses=5):
        self.courses = courses
        self.rows = []
        self.targets = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        names = rng.sample(SUBJECTS, self.courses)
        self.rows = [(n, rng.randint(1, 5), rng.choice(sorted(GRADES))) for n in names]
        credits = sum(c for _, c, _ in self.rows)
        points = sum(Fraction(c * GRADES[g], 10) for _, c, g in self.rows)
        self.targets = [Fraction(credits), points, points / credits]
        self.index = 0
        self.attempts = 0
        self.done = False
        table = "\n".join(f"  {n}: {c} credits, grade {g}" for n, c, g in self.rows)
        obs = f"Transcript:\n{table}\nGrade points: A 4.0, A- 3.7, B+ 3.3, B 3.0, B- 2.7, C+ 2.3, C 2.0, D 1.0.\n"
        return obs + self.question(), {"step": 0}

    def question(self):
        example = "N" if self.index < 2 else "N.NN"
        texts = ["Step 1: how many credits in total?", "Step 2: how many quality points in total?",
                 "Step 3: what is the GPA, rounded to two decimals (within 0.005)?"]
        return f"{texts[min(self.index, 2)]} Reply like \\boxed{{{example}}}. {TRIES} tries per step."

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number in \\boxed{{}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "step": self.index}
        expected = self.targets[self.index]
        ok = abs(value - expected) <= Fraction(1, 200) if self.index == 2 else value == expected
        if ok:
            self.index = self.index + 1
            self.attempts = 0
            if self.index == 3:
                self.done = True
                return "Correct. Transcript audited.", 1.0 / 3, True, False, {"success": True, "step": 3}
            return f"Correct.\n{self.question()}", 1.0 / 3, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= TRIES:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}.\n{self.question()}", 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        plans = ["Add the credit hours of every course.",
                 "Multiply each course's credits by its grade points and add the products.",
                 "Divide the quality points by the credits, then round half up to two places."]
        return plans[min(self.index, 2)]

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return f"\\boxed{{{fmt(self.targets[self.index])}}}"
