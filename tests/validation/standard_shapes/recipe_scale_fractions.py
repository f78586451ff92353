# shape: scale a recipe's fractional cup amounts to a new number of servings, exact fractions or mixed numbers per turn, then the total.
"""Scale a recipe with fractional amounts: the factor, each scaled amount and the total, all exact fractions."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "RecipeFractionScaling",
    "domain": "math",
    "description": (
        "A recipe for some servings lists dry ingredients in cups as fractions and mixed numbers. Scale it to a "
        "new number of servings: give the scaling factor, each scaled amount and the total volume, all as exact "
        "fractions (improper fractions, mixed numbers or terminating decimals)."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "ingredients": {"min": 2, "max": 5, "default": 3, "description": "amounts to scale (plus the total)"},
        "odd_ratio": {"min": 0, "max": 1, "default": 1,
                      "description": "0: the new servings are a multiple or half; 1: any ratio such as 5/3"},
    },
    "grounding": (
        "Fraction arithmetic in cooking: scale factor = new servings / old servings; a scaled amount is the old "
        "amount times the factor; mixed numbers convert to improper fractions; sums need a common denominator."
    ),
    "tags": ["fractions", "ratio", "mixed-numbers", "multi-step"],
}

ATTEMPTS = 3
INGREDIENTS = ["flour", "sugar", "oats", "cocoa powder", "brown sugar", "ground almonds", "rice", "cornmeal"]
AMOUNTS = [Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(3, 4), Fraction(1),
           Fraction(5, 4), Fraction(4, 3), Fraction(3, 2), Fraction(5, 3), Fraction(7, 4), Fraction(2),
           Fraction(9, 4), Fraction(5, 2), Fraction(3)]


def mixed(value):
    whole, part = divmod(value.numerator, value.denominator)
    if part == 0:
        return str(whole)
    frac = f"{part}/{value.denominator}"
    return frac if whole == 0 else f"{whole} {frac}"


def parse_fraction(text):
    cleaned = re.sub(r"\\text\{([^{}]*)\}", r" \1", text).strip()
    cleaned = re.sub(r"\s*(cups?|c)\s*$", "", cleaned, flags=re.IGNORECASE).strip()
    cleaned = re.sub(r"\\[dt]?frac\{\s*(\d+)\s*\}\{\s*(\d+)\s*\}", r" \1/\2", cleaned).strip()
    match = re.fullmatch(r"(\d+)\s+(\d+)\s*/\s*(\d+)", cleaned)
    if match:
        whole, num, den = (int(g) for g in match.groups())
        if den == 0 or num >= den:
            return None
        return whole + Fraction(num, den)
    return to_number(cleaned)


class RecipeFractionScaling:
    def __init__(self, ingredients=3, odd_ratio=1):
        self.n_ingredients = ingredients
        self.odd_ratio = odd_ratio
        self.steps = []
        self.story = ""
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False

    def reset(self, rng, options):
        old = rng.choice([2, 3, 4, 6, 8])
        if self.odd_ratio:
            new = rng.choice([n for n in range(2, 13) if n != old and n % old and old % n])
        else:
            new = rng.choice([old * 2, old * 3] + ([old // 2] if old % 2 == 0 and old > 2 else []))
        factor = Fraction(new, old)
        names = rng.sample(INGREDIENTS, self.n_ingredients)
        amounts = rng.sample(AMOUNTS, self.n_ingredients)
        lines = "\n".join(f"  {mixed(a)} cup{'s' if a > 1 else ''} {n}" for n, a in zip(names, amounts))
        self.story = f"A recipe that serves {old} uses:\n{lines}\nYou need to make {new} servings instead."
        self.steps = [("By what factor must every amount be multiplied?", factor,
                       "The factor is the new number of servings over the old one, reduced.")]
        for name, amount in zip(names, amounts):
            self.steps.append((f"How many cups of {name} does the scaled recipe need?", amount * factor,
                               "Turn a mixed number into an improper fraction, multiply, then simplify."))
        self.steps.append(("How many cups of dry ingredients does the scaled recipe use in total?",
                           sum(amounts) * factor, "Add the scaled amounts over a common denominator "
                                                  "(or scale the original total)."))
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False
        obs = (f"{self.story}\nAnswer {len(self.steps)} questions in order, one per turn, as \\boxed{{value}}: "
               f"an exact fraction such as 7/3, a mixed number such as 2 1/3, or a decimal only if it is exact. "
               f"{ATTEMPTS} tries per question.\n{self.question()}")
        return obs, {"step": 0}

    def question(self):
        return f"Question {self.index + 1}/{len(self.steps)}: {self.steps[self.index][0]}"

    def step(self, action):
        self.turns = self.turns + 1
        obs, reward, terminated, truncated, info = self.play(action)
        if not terminated and self.turns >= ENV_SPEC["max_turns"]:
            self.done = True
            truncated = True
            obs = f"{obs}\nOut of turns."
        return obs, reward, terminated, truncated, info

    def play(self, action):
        if self.done:
            return "The recipe is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action if isinstance(action, str) else "")
        value = parse_fraction(given) if given is not None else None
        if value is None:
            obs = f"No exact number found: reply like \\boxed{{7/3}} or \\boxed{{2 1/3}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected \\boxed{fraction}", "step": self.index}
        expected = self.steps[self.index][1]
        if value == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. The recipe is scaled.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if value.denominator > 1000:
            note = f"{note}; rounded decimals are not exact, use a fraction"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this question.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done or not self.steps:
            return "Keep exact fractions throughout."
        hint = f"Keep exact fractions. {self.steps[self.index][2]}"
        for item in self.steps:
            value = item[1]
            if mentions_answer(hint, f"{value.numerator}/{value.denominator}") or mentions_answer(hint, mixed(value)):
                return "Keep exact fractions throughout and simplify at the end."
        return hint

    def reference_action(self):
        if self.done or not self.steps:
            return "\\boxed{1}"
        value = self.steps[self.index][1]
        return f"\\boxed{{{value.numerator}/{value.denominator}}}"
