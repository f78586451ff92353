# shape: three checked steps of a dice-sum probability (outcomes, favourable count, the fraction; equivalent fractions accepted)
"""Probability of a dice-sum event, built up in three checked steps (sample space, favourable count, fraction)."""

from fractions import Fraction
from math import comb

from spade_domains.math.verify import answers_match, extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "DiceSumOutcomeCount",
    "domain": "math",
    "description": (
        "n fair dice with s faces (numbered 1..s) are rolled. Step 1: the number of equally likely ordered "
        "outcomes. Step 2: how many of them satisfy the event (a sum exactly t, or at least t). Step 3: the "
        "probability of the event as a fraction. Each step is checked before the next; three tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "dice": {"min": 2, "max": 5, "default": 3, "description": "number of dice rolled"},
        "faces": {"min": 4, "max": 12, "default": 6, "description": "faces per die"},
    },
    "grounding": (
        "Classical probability for dice (Cardano, Pascal-Fermat): equally likely ordered outcomes; the count of "
        "compositions of t into n parts of size 1..s is sum_k (-1)^k C(n,k) C(t-ks-1, n-1) (inclusion-exclusion)."
    ),
    "tags": ["combinatorics", "probability", "fractions", "multi-step"],
}

TRIES = 3


def ways_exact(n, s, t):
    total = 0
    for k in range(n + 1):
        top = t - k * s - 1
        if top < n - 1:
            break
        total = total + (-1) ** k * comb(n, k) * comb(top, n - 1)
    return total


class DiceSumOutcomeCount:
    def __init__(self, dice=3, faces=6):
        self.n = dice
        self.s = faces
        self.t = dice
        self.kind = "exactly"
        self.answers = []
        self.index = 0
        self.tries = 0
        self.done = False

    def reset(self, rng, options):
        self.kind = rng.choice(["exactly", "at least"])
        low, high = self.n, self.n * self.s
        while True:
            self.t = rng.randint(low + 1, high - 1)
            if self.kind == "exactly":
                fav = ways_exact(self.n, self.s, self.t)
            else:
                fav = sum(ways_exact(self.n, self.s, u) for u in range(self.t, high + 1))
            total = self.s ** self.n
            if fav not in (1, total) and fav != total - 1:
                break
        prob = Fraction(fav, total)
        self.answers = [str(total), str(fav), f"{prob.numerator}/{prob.denominator}"]
        self.index = 0
        self.tries = 0
        self.done = False
        obs = (
            f"Roll {self.n} fair dice, each with faces 1 to {self.s}. Event: the sum is {self.kind} {self.t}. "
            "Answer each step as \\boxed{...}.\n" + self.question()
        )
        return obs, {"step": 0}

    def question(self):
        return [
            "Step 1/3: how many equally likely ordered outcomes are there?",
            "Step 2/3: how many of those outcomes satisfy the event?",
            "Step 3/3: what is the probability of the event (a fraction or exact decimal)?",
        ][self.index]

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            return (f"Cannot read {safe_echo(action)!r}: give a number as \\boxed{{...}}.\n{self.question()}", 0.0,
                    False, False, {"format_error": "expected a number or fraction in \\boxed{}", "step": self.index})
        expected = self.answers[self.index]
        if answers_match(given, expected):
            self.index = self.index + 1
            self.tries = 0
            if self.index == 3:
                self.done = True
                return "Correct. Problem solved.", 1.0 / 3, True, False, {"success": True, "step": 3}
            return f"Correct.\n{self.question()}", 1.0 / 3, False, False, {"success": False, "step": self.index}
        self.tries = self.tries + 1
        target = to_number(expected)
        note = f"{safe_echo(given)} is too {'high' if value > target else 'low'}"
        if self.index == 2 and value.denominator != 1:
            note = note + " (check that it is favourable outcomes over all outcomes)"
        if self.tries >= TRIES:
            self.done = True
            return f"{note}. Out of tries for this step.", 0.0, True, False, {"success": False, "step": self.index}
        return (f"{note}. {TRIES - self.tries} tries left.\n{self.question()}", 0.0, False, False,
                {"success": False, "step": self.index})

    def privileged_hint(self):
        plans = [
            "Each die independently shows one of its faces, so multiply the choices for each die.",
            "Substitute y_i = x_i - 1 to count solutions of y_1+...+y_n = t-n with 0 <= y_i <= s-1: stars and bars "
            "C(m+n-1, n-1), minus the cases where some y_i >= s by inclusion-exclusion. For 'at least', add the "
            "counts for every sum from t up, or use the symmetry sum <-> n(s+1) - sum.",
            "Divide the favourable count by the total and reduce by their greatest common divisor.",
        ]
        hint = plans[self.index] if self.index < 3 else plans[2]
        if self.index < 3 and mentions_answer(hint, self.answers[self.index]):
            hint = "Count carefully; inclusion-exclusion over dice that exceed their top face."
        return hint

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return f"\\boxed{{{self.answers[self.index]}}}"
