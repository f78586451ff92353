# shape: unit-ful answer ("12.5 km", "47 min"): the reply must carry a unit; equivalent units are converted, a missing unit is a format error.
"""Two cyclists ride toward each other from two towns; answers are quantities with units."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "CyclistsMeetHalfway",
    "domain": "math",
    "description": (
        "Two cyclists ride toward each other on one road between two towns, the second leaving later. Give the "
        "gap when the second sets off, the time until they meet, and where they meet, each with its unit "
        "(km or m; min, h or s)."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "max_distance": {"min": 30, "max": 150, "default": 80, "description": "longest road between the towns (km)"},
        "max_delay": {"min": 20, "max": 120, "default": 60, "description": "longest head start of the first rider (min)"},
    },
    "grounding": (
        "Relative motion on a line: riders approaching each other close the gap at the sum of their speeds; "
        "distance = speed x time with hours and minutes converted consistently (60 min = 1 h)."
    ),
    "tags": ["rates", "units", "kinematics", "multi-step"],
}

ATTEMPTS = 3
UNITS = {
    "km": ("length", Fraction(1)), "kilometres": ("length", Fraction(1)), "kilometers": ("length", Fraction(1)),
    "m": ("length", Fraction(1, 1000)), "metres": ("length", Fraction(1, 1000)), "meters": ("length", Fraction(1, 1000)),
    "min": ("time", Fraction(1)), "mins": ("time", Fraction(1)), "minutes": ("time", Fraction(1)),
    "h": ("time", Fraction(60)), "hr": ("time", Fraction(60)), "hours": ("time", Fraction(60)),
    "s": ("time", Fraction(1, 60)), "seconds": ("time", Fraction(1, 60)),
}
QUANTITY = re.compile(r"^\s*([-+]?[0-9][0-9.,/]*)\s*(?:\\text\{\s*|\\mathrm\{\s*)?([A-Za-z]+)\s*\}?\s*$")
STEPS = [
    ("length", "How far apart are the riders when the second one sets off?", "0.01 km (10 m)", Fraction(1, 100)),
    ("time", "How long after the second rider sets off do they meet?", "0.1 min", Fraction(1, 10)),
    ("length", "How far from town A do they meet?", "0.01 km (10 m)", Fraction(1, 100)),
]


def parse_quantity(text):
    """(kind, value in km or min) or None."""
    m = QUANTITY.match(text)
    if not m:
        return None
    number = to_number(m.group(1))
    unit = UNITS.get(m.group(2).lower())
    if number is None or unit is None:
        return None
    return unit[0], number * unit[1]


class CyclistsMeetHalfway:
    def __init__(self, max_distance=80, max_delay=60):
        self.max_distance = max_distance
        self.max_delay = max_delay
        self.distance = 0
        self.v1 = 0
        self.v2 = 0
        self.delay = 0
        self.answers = []
        self.step_no = 0
        self.misses = 0
        self.done = False

    def reset(self, rng, options):
        while True:
            self.distance = rng.randint(25, self.max_distance)
            self.v1 = rng.randint(12, 30)
            self.v2 = rng.randint(12, 30)
            self.delay = rng.randrange(10, self.max_delay + 1, 5)
            gap = self.distance - Fraction(self.v1 * self.delay, 60)
            shown = {self.distance, self.v1, self.v2, self.delay}
            if gap >= 5:
                meet = gap / (self.v1 + self.v2) * 60
                from_a = self.v1 * (Fraction(self.delay, 60) + meet / 60)
                if not shown & {gap, meet, from_a}:
                    break
        self.answers = [gap, meet, from_a]
        self.step_no = 0
        self.misses = 0
        self.done = False
        obs = (
            f"Towns A and B are {self.distance} km apart on a straight road. Rider 1 leaves A for B at "
            f"{self.v1} km/h; rider 2 leaves B for A {self.delay} min later at {self.v2} km/h. Answer each question as "
            f"\\boxed{{value unit}}, e.g. \\boxed{{3.5 km}} or \\boxed{{42 min}} (km, m, min, h or s accepted).\n"
            f"{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        kind, text, tol, _ = STEPS[self.step_no]
        return f"Step {self.step_no + 1}/3: {text} (a {kind}, within {tol})"

    def step(self, action):
        if self.done:
            return "This problem is finished; reset for a new one.", 0.0, True, False, {"success": False}
        given = extract_answer(action)
        if given is None and len(action.strip()) <= 40:
            given = action.strip()
        parsed = parse_quantity(given) if given is not None else None
        kind, _, _, tol = STEPS[self.step_no]
        if parsed is None or parsed[0] != kind:
            why = "a number followed by a unit" if parsed is None else f"a {kind}, not a {parsed[0]}"
            obs = f"Expected {why}, e.g. \\boxed{{3.5 km}} or \\boxed{{42 min}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": f"expected {why}", "step": self.step_no}
        value = parsed[1]
        expected = self.answers[self.step_no]
        if abs(value - expected) <= tol:
            self.step_no = self.step_no + 1
            self.misses = 0
            if self.step_no == 3:
                self.done = True
                return "Correct. They meet exactly there.", 1.0 / 3, True, False, {"success": True, "step": 3}
            return f"Correct.\n{self.question()}", 1.0 / 3, False, False, {"success": False, "step": self.step_no}
        self.misses = self.misses + 1
        note = f"{safe_echo(given)} is too {'large' if value > expected else 'small'}"
        if self.misses >= ATTEMPTS:
            self.done = True
            unit = "km" if kind == "length" else "min"
            obs = f"{note}. Out of tries; it was {float(expected):.3f} {unit}."
            return obs, 0.0, True, False, {"success": False, "step": self.step_no}
        obs = f"{note}. {ATTEMPTS - self.misses} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.step_no}

    def privileged_hint(self):
        plans = [
            "Rider 1 has been riding alone for the head start; convert those minutes to hours before multiplying.",
            "While both ride, the gap shrinks at the sum of the two speeds; convert the hours you get into minutes.",
            "Rider 1 rides for the head start plus the time until the meeting; distance from A is speed times both.",
        ]
        return plans[min(self.step_no, 2)]

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1 km}"
        unit = "km" if STEPS[self.step_no][0] == "length" else "min"
        return f"\\boxed{{{float(self.answers[self.step_no]):.4f} {unit}}}"
