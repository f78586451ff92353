# expect: hint
# twin: shoelace_area
# flaw: the privileged hint brackets each answer in an open interval centred on it (width 4 for the doubled area, 2 for the area), so its midpoint is the answer and its grid leaves at most 3 candidates for 3 tries.
"""Area of a lattice polygon by the shoelace formula: twice the area first, then the area."""

import math
from fractions import Fraction

from spade_domains.math.verify import extract_answer, mentions_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "ShoelaceLatticeArea",
    "domain": "math",
    "description": (
        "A simple polygon with integer vertices is listed in order around its boundary. Give the absolute "
        "shoelace sum (twice the area), then the area, with too-high/too-low feedback."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
    "players": 1,
    "difficulty": {
        "vertices": {"min": 3, "max": 6, "default": 4, "description": "polygon vertices"},
        "span": {"min": 6, "max": 40, "default": 12, "description": "coordinate range"},
    },
    "grounding": (
        "The shoelace (surveyor's) formula: for vertices (x_i, y_i) in boundary order, twice the signed area is "
        "the sum of x_i y_{i+1} - x_{i+1} y_i around the polygon; the area of a lattice polygon is a multiple of 1/2."
    ),
    "tags": ["geometry", "area", "coordinates", "multi-step"],
}

TRIES = 3


def fmt(x):
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


class ShoelaceLatticeArea:
    def __init__(self, vertices=4, span=12):
        self.vertices = vertices
        self.span = span
        self.points = []
        self.targets = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        while True:
            pts = list({(rng.randint(-self.span, self.span), rng.randint(-self.span, self.span))
                        for _ in range(self.vertices)})
            if len(pts) < self.vertices:
                continue
            cx = sum(p[0] for p in pts) / len(pts)
            cy = sum(p[1] for p in pts) / len(pts)
            pts.sort(key=lambda p: (math.atan2(p[1] - cy, p[0] - cx), p))
            twice = abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1])))
            if twice > 2:
                break
        self.points = pts
        self.targets = [Fraction(twice), Fraction(twice, 2)]
        self.index = 0
        self.attempts = 0
        self.done = False
        listing = ", ".join(f"({x}, {y})" for x, y in pts)
        obs = (f"Polygon vertices in boundary order: {listing}.\nReply \\boxed{{x}}; {TRIES} tries per step.\n"
               f"{self.question()}")
        return obs, {"step": 0}

    def question(self):
        if self.index == 0:
            return "Step 1: what is the absolute value of the shoelace sum (twice the area)?"
        return "Step 2: what is the area?"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number as \\boxed{{x}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "step": self.index}
        expected = self.targets[self.index]
        if value == expected:
            self.index = self.index + 1
            self.attempts = 0
            if self.index == 2:
                self.done = True
                return "Correct. Area measured.", 0.5, True, False, {"success": True, "step": 2}
            return f"Correct.\n{self.question()}", 0.5, False, False, {"success": False, "step": 1}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= TRIES:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}.\n{self.question()}", 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        expected = self.targets[min(self.index, 1)]
        width = 2 if self.index == 0 else 1
        hint = (f"Multiply across in boundary order; the value asked for lies strictly between "
                f"{fmt(expected - width)} and {fmt(expected + width)}.")
        if mentions_answer(hint, fmt(expected)):
            hint = "Sum x_i*y_(i+1) - x_(i+1)*y_i around the polygon, wrapping to the first vertex."
        return hint

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return f"\\boxed{{{fmt(self.targets[self.index])}}}"
