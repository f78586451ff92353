# shape: GSM8K-style multi-step word problem with a unit per answer (kg / sacks / minutes / dollars); units ...
"""A GSM8K-style bakery word problem solved step by step, each answer a quantity with a stated unit."""

import math
import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "BakeryOrderUnits",
    "domain": "math",
    "description": (
        "A bakery fills a wholesale bread order. Answer four steps in turn, each with the unit asked for: flour in "
        "kilograms, whole sacks to buy, oven time in minutes, and flour cost in dollars. Numbers may carry the unit "
        "(7.2 kg, 7200 g, 3 h 20 min, $45.60); a bare number is read in the unit asked for. Two tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "loaves": {"min": 40, "max": 900, "default": 180, "description": "largest order size drawn"},
        "reload": {"min": 0, "max": 1, "default": 1, "description": "1: ovens need reload minutes between batches"},
    },
    "grounding": (
        "Bakery production arithmetic (GSM8K-style multi-step word problems): baker's recipe mass per loaf, metric "
        "mass conversion (1 kg = 1000 g), rounding purchases up to whole sacks, oven batches as a ceiling division, "
        "and unit cost times quantity."
    ),
    "tags": ["math", "word-problem", "units", "multi-step", "gsm8k"],
}

ATTEMPTS = 2
FAMILIES = {
    "mass": {"kg": 1000, "kgs": 1000, "kilogram": 1000, "kilograms": 1000, "g": 1, "grams": 1, "gram": 1},
    "count": {"sack": 1, "sacks": 1, "bag": 1, "bags": 1},
    "time": {"min": 1, "mins": 1, "minute": 1, "minutes": 1, "h": 60, "hr": 60, "hrs": 60, "hour": 60,
             "hours": 60},
    "money": {"$": 1, "dollar": 1, "dollars": 1, "usd": 1, "cents": Fraction(1, 100), "cent": Fraction(1, 100)},
}
BASE = {"mass": 1000, "count": 1, "time": 1, "money": 1}
UNIT_NAME = {"mass": "kilograms", "count": "sacks", "time": "minutes", "money": "dollars"}
PAIR = re.compile(r"([-+]?\d+(?:\.\d+)?(?:/\d+)?)\s*([a-z$]*)")


def parse_quantity(text, family):
    """Value in the family's base unit (g, sacks, minutes, dollars), or None; ('unit', name) for a foreign unit."""
    s = text.strip().lower()
    s = re.sub(r"\\text\{([^{}]*)\}", r" \1 ", s)
    s = re.sub(r"\\frac\{(\d+)\}\{(\d+)\}", r"\1/\2", s)
    s = s.replace("\\$", "$").replace("\\,", "").replace("\\ ", " ").replace("~", " ")
    s = re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)
    s = s.rstrip(". ")
    dollars_first = s.startswith("$")
    if dollars_first:
        s = s[1:].strip() + " $"
    table = FAMILIES[family]
    total = Fraction(0)
    pos = 0
    found = 0
    while pos < len(s):
        if s[pos] == " ":
            pos = pos + 1
            continue
        m = PAIR.match(s, pos)
        if m is None:
            return None
        value = to_number(m.group(1))
        if value is None:
            return None
        unit = m.group(2)
        pos = m.end()
        if pos < len(s) and s[pos:].strip().startswith("$"):
            unit = "$"
            pos = s.index("$", pos) + 1
        if unit == "":
            if found or pos < len(s) and s[pos:].strip():
                return None
            return value * BASE[family]
        if unit not in table:
            for _other, units in FAMILIES.items():
                if unit in units:
                    return ("unit", unit)
            return None
        total = total + value * table[unit]
        found = found + 1
    return total if found else None


class BakeryOrderUnits:
    def __init__(self, loaves=180, reload=1):
        self.max_loaves = loaves
        self.reload_on = reload
        self.steps = []
        self.index = 0
        self.attempts = 0
        self.done = False
        self.story = ""

    def reset(self, rng, options):
        loaves = rng.randint(max(12, self.max_loaves // 4), self.max_loaves)
        grams = rng.choice([320, 350, 380, 420, 450, 480, 520, 560])
        sack = rng.choice([5, 10, 12.5, 25])
        price = Fraction(rng.randint(600, 3200), 100)
        tray = rng.choice([12, 16, 18, 20, 24, 30])
        bake = rng.choice([25, 28, 32, 35, 40, 45])
        gap = rng.choice([4, 5, 6, 8, 10]) if self.reload_on else 0
        flour_g = loaves * grams
        sacks = math.ceil(Fraction(flour_g, 1000) / Fraction(sack).limit_denominator(10))
        batches = math.ceil(loaves / tray)
        minutes = batches * bake + (batches - 1) * gap
        cost = sacks * price
        sack_text = f"{sack:g}"
        gap_text = f", and reloading the oven between batches takes {gap} minutes" if gap else ""
        self.story = (
            f"A bakery must deliver {loaves} sourdough loaves. Each loaf uses {grams} g of flour. Flour is sold "
            f"only in whole {sack_text} kg sacks costing ${price.numerator / price.denominator:.2f} each. The oven "
            f"bakes {tray} loaves per batch, a batch takes {bake} minutes{gap_text}."
        )
        self.steps = [
            ("How much flour does the order need, in kilograms?", "mass", Fraction(flour_g),
             "Total mass is loaves times mass per loaf; divide grams by 1000 to get kilograms."),
            ("How many sacks must the bakery buy?", "count", Fraction(sacks),
             "Sacks must be whole: divide the flour mass by the sack size and round UP."),
            ("How long does baking the whole order take, in minutes (first batch in to last batch out)?", "time",
             Fraction(minutes),
             "Batches are a ceiling division of loaves by tray size; reloads happen only BETWEEN batches."),
            ("What does the flour cost, in dollars?", "money", cost,
             "Cost is whole sacks bought times the price per sack, not the exact flour mass."),
        ]
        self.index = 0
        self.attempts = 0
        self.done = False
        return self._question(), {"step": 0, "steps": len(self.steps)}

    def _question(self):
        text, family, _, _ = self.steps[self.index]
        return (
            f"{self.story}\nStep {self.index + 1}/{len(self.steps)}: {text} Reply as \\boxed{{...}} or 'Answer: "
            f"...'; a number with a unit is converted, a bare number is read in {UNIT_NAME[family]}."
        )

    def _shown(self, value, family):
        v = value / BASE[family]
        if v.denominator == 1:
            return f"{v.numerator} {UNIT_NAME[family]}"
        return f"{float(v):.4g} {UNIT_NAME[family]}"

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action) if isinstance(action, str) else None
        _, family, expected, _ = self.steps[self.index]
        value = parse_quantity(given, family) if given is not None else None
        if value is None:
            error = "expected a number, optionally with a unit (e.g. 7.2 kg, 3 h 20 min, $45.60)"
            obs = f"Format error: {error}.\n{self._question()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "step": self.index}
        if isinstance(value, tuple):
            note = f"'{safe_echo(value[1])}' is not a unit of {UNIT_NAME[family]}"
        elif value == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. The order is fully planned.", reward, True, False, {"success": True,
                                                                                   "step": self.index}
            return f"Correct.\n{self._question()}", reward, False, False, {"success": False, "step": self.index}
        else:
            note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        self.attempts = self.attempts + 1
        if self.attempts >= ATTEMPTS:
            self.done = True
            obs = f"{note}. Out of tries; it was {self._shown(expected, family)}."
            return obs, 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} try left.\n{self._question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done:
            return "The problem is finished."
        return self.steps[self.index][3]

    def reference_action(self):
        if self.done:
            return "Answer: 1"
        _, family, expected, _ = self.steps[self.index]
        v = expected / BASE[family]
        text = str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
        unit = {"mass": "kg", "count": "sacks", "time": "min", "money": "dollars"}[family]
        return f"Answer: {text} {unit}"
