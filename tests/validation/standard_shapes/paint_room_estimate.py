# shape: multi-step decorating word problem (wall area, paintable area, litres, cans, cost) with unit-ful answers, two tries per step and feedback.
"""Estimate the paint for a room: a GSM8K-style chain with units, two tries per step and directional feedback."""

import math
import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "PaintRoomEstimate",
    "domain": "math",
    "description": (
        "A rectangular room with a door and windows is repainted. In order, give the wall area, the paintable "
        "area, the litres of paint for all coats, the cans to buy and the cost. Two tries per step; a wrong try "
        "says too high or too low. Units after the number are accepted."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "steps": {"min": 3, "max": 5, "default": 5, "description": "quantities in the chain"},
        "windows": {"min": 0, "max": 3, "default": 2, "description": "openings to subtract besides the door"},
    },
    "grounding": (
        "Decorating estimates: the four walls of a room have area 2 x (length + width) x height; doors and "
        "windows are subtracted; paint = area x coats / coverage per litre; cans are bought whole (round up)."
    ),
    "tags": ["word-problem", "area", "units", "rounding-up", "two-tries"],
}

ATTEMPTS = 2
UNITS = {"m2": ["m^2", "m2", "m\u00b2", "sq m", "square metres", "square meters"],
         "L": ["l", "litres", "liters", "litre", "liter"], "cans": ["cans", "can", "tins", "tin"],
         "$": ["dollars", "dollar", "usd"]}


def fmt(value):
    for places in range(0, 5):
        scaled = value * 10 ** places
        if scaled.denominator == 1:
            return f"{float(value):.{places}f}"
    return f"{value.numerator}/{value.denominator}"


def parse_quantity(text, unit):
    cleaned = re.sub(r"\\text\{([^{}]*)\}", r" \1", text).replace("\\$", "$").replace("\\,", " ").strip()
    cleaned = cleaned.lstrip("$").strip()
    match = re.fullmatch(r"(-?\d+(?:\.\d+)?(?:/\d+)?)\s*([a-zA-Z\u00b2$].*)?", cleaned)
    if not match:
        return None
    tail = re.sub(r"\s+", " ", (match.group(2) or "").strip().lower().replace("{", "").replace("}", ""))
    if tail and tail != "$" and tail not in UNITS[unit]:
        return None
    return to_number(match.group(1))


class PaintRoomEstimate:
    def __init__(self, steps=5, windows=2):
        self.n_steps = steps
        self.n_windows = windows
        self.steps = []
        self.story = ""
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False

    def reset(self, rng, options):
        length = Fraction(rng.randint(30, 70), 10)
        width = Fraction(rng.randint(25, 55), 10)
        height = Fraction(rng.choice([24, 25, 26, 27, 28, 30]), 10)
        door = Fraction(rng.choice([80, 85, 90]), 100) * Fraction(rng.choice([200, 205, 210]), 100)
        windows = [(Fraction(rng.randint(6, 16), 10), Fraction(rng.randint(6, 14), 10)) for _ in range(self.n_windows)]
        coats = rng.choice([2, 3])
        coverage = rng.choice([8, 10, 12, 14])
        can = rng.choice([Fraction(1), Fraction(5, 2), Fraction(4), Fraction(5)])
        price = Fraction(rng.randint(1800, 5600), 100)
        walls = 2 * (length + width) * height
        paintable = walls - door - sum(w * h for w, h in windows)
        litres = paintable * coats / coverage
        cans = math.ceil(litres / can)
        cost = cans * price
        openings = "".join(f", a {float(w):g} m x {float(h):g} m window" for w, h in windows)
        self.story = (
            f"A room is {float(length):g} m long, {float(width):g} m wide and {float(height):g} m high. Its walls "
            f"have a door of {fmt(door)} m^2{openings}. The walls get {coats} coats of paint; one litre covers "
            f"{coverage} m^2 per coat. Paint is sold in {float(can):g} L cans at ${fmt(price)} per can."
        )
        self.steps = [
            ("What is the total area of the four walls, in m^2?", walls, "m2", Fraction(0),
             "Two walls are length x height and two are width x height."),
            ("What area is actually painted (walls minus door and windows), in m^2?", paintable, "m2", Fraction(0),
             "Subtract the door and every window area from the wall area."),
            ("How many litres of paint are needed for all coats (within 0.01 L)?", litres, "L", Fraction(1, 100),
             "Every coat covers the whole paintable area again."),
            ("How many cans must be bought?", Fraction(cans), "cans", Fraction(0),
             "Cans come whole: a fraction of a can still needs a full can."),
            ("What do the cans cost in dollars?", cost, "$", Fraction(0), "Multiply whole cans by the can price."),
        ][: self.n_steps]
        self.index = 0
        self.attempts = 0
        self.turns = 0
        self.done = False
        obs = (f"{self.story}\nAnswer {len(self.steps)} questions in order, one per turn, as \\boxed{{value}} (a "
               f"unit may follow the number). Exact values unless a tolerance is stated. {ATTEMPTS} tries per "
               f"question.\n{self.question()}")
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
            return "The estimate is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action if isinstance(action, str) else "")
        _, expected, unit, tol, _ = self.steps[self.index]
        value = parse_quantity(given, unit) if given is not None else None
        if value is None:
            obs = f"No readable value: reply like \\boxed{{12.5}} (unit {UNITS[unit][0]} optional).\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected \\boxed{number [unit]}", "step": self.index}
        if abs(value - expected) <= tol + Fraction(1, 10 ** 6):
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.steps)
            if self.index == len(self.steps):
                self.done = True
                return "Correct. The estimate is complete.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this question.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. One try left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done or not self.steps:
            return "Carry exact areas forward; round only the can count."
        hint = f"Carry exact values forward. {self.steps[self.index][4]}"
        for item in self.steps:
            if mentions_answer(hint, fmt(item[1])):
                return "Carry exact values forward; round only the can count, and up."
        return hint

    def reference_action(self):
        if self.done or not self.steps:
            return "\\boxed{1}"
        return f"\\boxed{{{fmt(self.steps[self.index][1])}}}"
