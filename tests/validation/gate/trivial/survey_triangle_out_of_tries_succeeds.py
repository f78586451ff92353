# expect: baselines
# twin: survey_triangle
# flaw: running out of tries on a step reveals the value and moves on, and reaching the last step counts as success
"""Solve a surveyed triangle step by step (law of cosines, area, angle, altitude) within a stated tolerance."""

import math

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "SurveyTriangleSteps",
    "domain": "math",
    "description": (
        "A surveyor measures two sides of a triangular plot and the angle between them. Find, one step at a time, "
        "the third side, the area, the angle opposite the first side, and the altitude to the third side. Each "
        "answer is accepted within 0.01 of the true value (in metres, square metres or degrees). Two tries per step."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 10,
    "players": 1,
    "difficulty": {
        "obtuse_share": {"min": 0, "max": 2, "default": 1,
                         "description": "0: acute included angle; 1: either; 2: always obtuse (cosine sign trap)"},
        "max_side": {"min": 20, "max": 400, "default": 120, "description": "longest measured side in metres"},
    },
    "grounding": (
        "Plane surveying of a plot by two sides and the included angle (SAS): law of cosines c^2 = a^2 + b^2 - "
        "2ab cos C, area = (1/2) a b sin C, an angle recovered by the law of cosines (no ambiguous arcsine case), "
        "and the altitude as twice the area over the base."
    ),
    "tags": ["math", "geometry", "trigonometry", "tolerance", "multi-step"],
}

ATTEMPTS = 2
TOL = 0.01


class SurveyTriangleSteps:
    def __init__(self, obtuse_share=1, max_side=120):
        self.obtuse_share = obtuse_share
        self.max_side = max_side
        self.a = 0
        self.b = 0
        self.angle = 0
        self.steps = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        low = max(5, self.max_side // 5)
        self.a = rng.randint(low, self.max_side)
        self.b = rng.randint(low, self.max_side)
        if self.obtuse_share == 0:
            self.angle = rng.randint(25, 85)
        elif self.obtuse_share == 2:
            self.angle = rng.randint(95, 150)
        else:
            self.angle = rng.choice([rng.randint(25, 85), rng.randint(95, 150)])
        a, b = self.a, self.b
        rad = math.radians(self.angle)
        c = math.sqrt(a * a + b * b - 2 * a * b * math.cos(rad))
        area = 0.5 * a * b * math.sin(rad)
        angle_a = math.degrees(math.acos((b * b + c * c - a * a) / (2 * b * c)))
        height = 2 * area / c
        self.steps = [
            ("the length of the third side AB, in metres", c,
             "Law of cosines with the included angle; for an angle over 90 degrees the cosine is negative, so the "
             "third side is longer than sqrt(a^2 + b^2)."),
            ("the area of the plot, in square metres", area, "Half the product of the two measured sides times the "
                                                             "sine of the angle between them."),
            ("the angle at A (opposite side BC), in degrees", angle_a,
             "Use the law of cosines again with all three sides (arcsine cannot tell an obtuse angle from its "
             "supplement)."),
            ("the altitude from C to side AB, in metres", height, "The area is half the base AB times this height."),
        ]
        self.index = 0
        self.attempts = 0
        self.done = False
        return self._question(), {"step": 0, "steps": len(self.steps)}

    def _question(self):
        return (
            f"Triangle ABC: BC = {self.a} m, CA = {self.b} m, and the angle at C between them is {self.angle} "
            f"degrees.\nStep {self.index + 1}/{len(self.steps)}: give {self.steps[self.index][0]}. Answers within "
            f"{TOL} of the true value are accepted; reply as \\boxed{{x}}."
        )

    def step(self, action):
        if self.done:
            return "The survey is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action) if isinstance(action, str) else None
        value = to_number(given.replace(" ", "")) if given is not None else None
        if value is None or value <= 0 or value > 10 ** 9:
            error = "expected a positive number such as \\boxed{12.34}"
            return f"Format error: {error}.\n{self._question()}", 0.0, False, False, {
                "success": False, "format_error": error, "step": self.index}
        expected = self.steps[self.index][1]
        if abs(float(value) - expected) <= TOL:
            reward = 1.0 / len(self.steps)
            note = "Correct"
        else:
            self.attempts = self.attempts + 1
            note = f"{safe_echo(given)} is too {'high' if float(value) > expected else 'low'}"
            if self.attempts < ATTEMPTS:
                obs = f"{note}. {ATTEMPTS - self.attempts} try left.\n{self._question()}"
                return obs, 0.0, False, False, {"success": False, "step": self.index}
            reward = 0.0
            note = f"{note}. Out of tries; it was {expected:.4f}"
        self.index = self.index + 1
        self.attempts = 0
        if self.index == len(self.steps):
            self.done = True
            return f"{note}. The plot is fully surveyed.", reward, True, False, {"success": True, "step": self.index}
        return f"{note}.\n{self._question()}", reward, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.done:
            return "The survey is finished."
        return self.steps[self.index][2]

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return "\\boxed{" + f"{self.steps[self.index][1]:.6f}" + "}"
