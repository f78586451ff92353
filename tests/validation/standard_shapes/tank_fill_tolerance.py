# shape: measured quantities of a cylindrical water tank (area, litres, minutes, depth) with units, each accepted within a stated 0.5% tolerance.
"""Fill a cylindrical tank: geometry and flow rates with unit-ful answers checked within a stated tolerance."""

import math
import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "CylinderTankFill",
    "domain": "math",
    "description": (
        "A vertical cylindrical water tank is partly full and a pump (possibly fighting a leak) fills it. Give "
        "the cross-section area, the litres still needed, the minutes to fill and the depth after a given time; "
        "each answer counts within 0.5% of the exact value and may carry its unit."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "steps": {"min": 2, "max": 4, "default": 3, "description": "quantities asked in the chain"},
        "leak": {"min": 0, "max": 1, "default": 0, "description": "1: a leak drains while the pump runs"},
    },
    "grounding": (
        "Mensuration and rates: area of a circle = pi r^2 with r half the diameter; volume = area x height; "
        "1 cubic metre = 1000 litres; time = volume / net flow rate; net rate = inflow - outflow."
    ),
    "tags": ["geometry", "units", "rates", "tolerance", "multi-step"],
}

ATTEMPTS = 3
REL_TOL = 0.005
UNITS = {"m2": ["m^2", "m2", "m²", "sq m", "square metres", "square meters", "square metre", "square meter"],
         "L": ["l", "litres", "liters", "litre", "liter"], "min": ["min", "mins", "minutes", "minute"],
         "cm": ["cm", "centimetres", "centimeters"]}


def parse_quantity(text, unit):
    cleaned = re.sub(r"\\text\{([^{}]*)\}", r" \1", text).replace("\\,", " ").replace("\\", "").strip()
    match = re.fullmatch(r"(-?\d+(?:\.\d+)?(?:/\d+)?)\s*([a-zA-Z\u00b2].*)?", cleaned)
    if not match:
        return None
    tail = re.sub(r"\s+", " ", (match.group(2) or "").strip().lower().replace("{", "").replace("}", ""))
    if tail and tail not in UNITS[unit]:
        return None
    value = to_number(match.group(1))
    return None if value is None else float(value)


def show(value):
    return f"{value:.4g}"


class CylinderTankFill:
    def __init__(self, steps=3, leak=0):
        self.n_steps = steps
        self.leak = leak
        self.steps = []
        self.story = ""
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False

    def reset(self, rng, options):
        diameter = Fraction(rng.randint(8, 30), 10)
        height = Fraction(rng.randint(15, 40), 10)
        level = height * Fraction(rng.randint(10, 60), 100)
        level = Fraction(round(level * 100), 100)
        inflow = rng.choice([40, 60, 75, 90, 120, 150, 180])
        outflow = rng.choice([5, 8, 10, 12, 15, 20]) if self.leak else 0
        area = math.pi * float(diameter / 2) ** 2
        litres = area * float(height - level) * 1000
        net = inflow - outflow
        minutes = litres / net
        run = rng.randint(2, 9) * 5
        while run > 1 and run * net >= litres * 0.9:
            run = max(1, run // 2)
        depth_cm = (float(level) + run * net / 1000 / area) * 100
        leak_text = f" A leak at the bottom drains {outflow} L/min the whole time." if outflow else ""
        self.story = (
            f"A vertical cylindrical tank has an inside diameter of {float(diameter):g} m and a height of "
            f"{float(height):g} m. The water stands {float(level):g} m deep. A pump adds {inflow} L/min.{leak_text}"
        )
        self.steps = [
            ("What is the tank's inside cross-section area in m^2?", area, "m2",
             "The area of a circle uses the radius, which is half the diameter."),
            ("How many litres are needed to fill the tank to the brim?", litres, "L",
             "Multiply the area by the empty height, then convert cubic metres to litres."),
            ("How many minutes does the fill take?", minutes, "min",
             "Divide the litres needed by the net rate at which the water rises."),
            (f"If the pump instead runs for only {run} minutes from now, how deep is the water then, in cm?",
             depth_cm, "cm", "Convert the net litres added to a rise in metres using the area, then add the "
                             "current depth."),
        ][: self.n_steps]
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False
        obs = (f"{self.story}\nAnswer {len(self.steps)} questions in order, one per turn, as \\boxed{{value}} "
               f"(the unit may follow the number). An answer within 0.5% of the exact value counts. {ATTEMPTS} "
               f"tries per question.\n{self.question()}")
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
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action if isinstance(action, str) else "")
        _, expected, unit, _ = self.steps[self.index]
        value = parse_quantity(given, unit) if given is not None else None
        if value is None:
            obs = (f"No readable value: reply like \\boxed{{12.3}} or \\boxed{{12.3 {UNITS[unit][0]}}} (unit "
                   f"{UNITS[unit][0]} only).\n{self.question()}")
            return obs, 0.0, False, False, {"format_error": "expected \\boxed{number [unit]}", "step": self.index}
        if abs(value - expected) <= REL_TOL * abs(expected) * (1 + 1e-9):
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. All quantities found.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this question.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done or not self.steps:
            return "Keep full precision until the final rounding."
        hint = f"Keep full precision between steps. {self.steps[self.index][3]}"
        if self.leak:
            hint = f"{hint} The leak runs during the whole fill, so use inflow minus outflow."
        for item in self.steps:
            if mentions_answer(hint, show(item[1])):
                return "Keep full precision between steps and check the units of each rate."
        return hint

    def reference_action(self):
        if self.done or not self.steps:
            return "\\boxed{1}"
        return f"\\boxed{{{self.steps[self.index][1]:.6f}}}"
