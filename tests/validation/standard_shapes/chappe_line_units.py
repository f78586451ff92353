# shape: unit-ful answer; each reply is a quantity with a unit (km or m; s, min or h; km/h or m/s), converted before comparing, so a unit slip is wrong and equivalent units are right.
"""Work out the length, delay and signal speed of a Chappe telegraph line; every answer carries a unit."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "ChappeLineUnits",
    "domain": "math",
    "description": (
        "A Chappe semaphore line has evenly spaced towers and a fixed relay time per tower. Give the line's length, "
        "the time a signal needs to cross it and the signal's average speed, each as a number with a unit (within 0.1%)."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "towers_high": {"min": 8, "max": 40, "default": 24, "description": "most towers on the line"},
        "steps": {"min": 2, "max": 3, "default": 3, "description": "quantities asked (speed is the 3rd)"},
    },
    "grounding": (
        "Claude Chappe's optical telegraph (Paris-Lille line, 1794): towers a few leagues apart relayed each "
        "signal in turn, so the message time grew with the number of relays, far faster than a mounted courier."
    ),
    "tags": ["units", "rates", "conversion", "multi-step"],
}

ATTEMPTS = 3
REL_TOL = Fraction(1, 1000)
UNITS = [
    {"km": Fraction(1000), "m": Fraction(1)},
    {"s": Fraction(1), "min": Fraction(60), "h": Fraction(3600)},
    {"km/h": Fraction(1000, 3600), "m/s": Fraction(1)},
]
ALIASES = {"sec": "s", "second": "s", "seconds": "s", "minute": "min", "minutes": "min", "mins": "min",
           "hour": "h", "hours": "h", "hr": "h", "kilometres": "km", "kilometers": "km", "metres": "m",
           "meters": "m", "kph": "km/h", "kmh": "km/h", "km/hr": "km/h", "mps": "m/s"}
QUANTITY = r"^([-+]?[0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?)\s*([A-Za-z/]+)$"


def parse_quantity(text):
    """(value, unit) from '12.5 km/h', '12.5\\text{ km/h}' or '12.5\\,\\mathrm{km/h}'; None if malformed."""
    s = text.replace("\\text{", "").replace("\\mathrm{", "").replace("\\,", " ").replace("}", "").replace("\\ ", " ")
    m = re.match(QUANTITY, s.strip())
    if m is None:
        return None
    value = to_number(m.group(1))
    unit = m.group(2).lower()
    unit = ALIASES.get(unit, unit)
    if value is None:
        return None
    return value, unit


class ChappeLineUnits:
    def __init__(self, towers_high=24, steps=3):
        self.towers_high = towers_high
        self.steps = steps
        self.towers = 0
        self.spacing = 0
        self.relay = 0
        self.answers = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        self.towers = rng.randint(6, self.towers_high)
        self.spacing = rng.randint(8, 16)
        self.relay = rng.randint(15, 90)
        gaps = self.towers - 1
        length_m = Fraction(gaps * self.spacing * 1000)
        time_s = Fraction(gaps * self.relay)
        self.answers = [length_m, time_s, length_m / time_s][: self.steps]
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"A telegraph line has {self.towers} towers in a row, {self.spacing} km apart, the first at the sending "
            f"city and the last at the receiving one. Each tower after the first needs {self.relay} seconds to read "
            f"and repeat a signal. Answer with a number AND a unit in \\boxed{{}}, e.g. \\boxed{{3.5 km}}: lengths "
            f"in km or m, times in s, min or h, speeds in km/h or m/s; answers within 0.1% of the exact value count. {ATTEMPTS} tries per "
            f"question.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        texts = [
            "How long is the line from the first tower to the last?",
            "How long does one signal take to travel from the first tower to the last?",
            "What is the signal's average speed along the line?",
        ]
        return f"Question {self.index + 1}/{self.steps}: {texts[self.index]}"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        parsed = parse_quantity(given) if given is not None else None
        table = UNITS[self.index]
        if parsed is None or parsed[1] not in table:
            units = ", ".join(table)
            obs = f"Reply with a number and one of these units: {units}, e.g. \\boxed{{12 {list(table)[0]}}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": f"expected a number with a unit ({units})", "step": self.index}
        value = parsed[0] * table[parsed[1]]
        expected = self.answers[self.index]
        if abs(value - expected) <= REL_TOL * expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / self.steps
            if self.index == self.steps:
                self.done = True
                return "Correct. The line is fully described.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'large' if value > expected else 'small'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}", 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        plans = [
            "Count the gaps between towers, not the towers.",
            "Only the towers after the first add a relay delay.",
            "Speed is length over time; convert both to the units you answer in before dividing.",
        ]
        return plans[min(self.index, len(plans) - 1)]

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1 m}"
        value = self.answers[self.index]
        if self.index == 0:
            return f"\\boxed{{{value / 1000} km}}"
        if self.index == 1:
            return f"\\boxed{{{value} s}}"
        return f"\\boxed{{{float(value * Fraction(36, 10)):.6g} km/h}}"
