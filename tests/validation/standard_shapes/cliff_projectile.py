# shape: numeric answer with a stated tolerance (each step accepted within 0.5% relative error, said in the task).
"""Projectile launched from a cliff: time of flight, peak height and range, each within a stated 0.5%."""

import math
import re

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "CliffProjectile",
    "domain": "math",
    "description": (
        "A ball is launched from the top of a cliff with a given speed and elevation angle (no air resistance, "
        "g = 9.81 m/s^2). Give the peak height above the ground, the time until it lands and the horizontal "
        "distance travelled, each within 0.5%."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "max_speed": {"min": 15, "max": 60, "default": 30, "description": "largest launch speed drawn (m/s)"},
        "cliff": {"min": 0, "max": 80, "default": 40, "description": "tallest cliff drawn (m); 0 is level ground"},
    },
    "grounding": (
        "Projectile motion without drag: horizontal velocity v cos(theta) is constant, vertical motion is uniformly "
        "accelerated; the landing time solves h + v sin(theta) t - g t^2 / 2 = 0 (the positive root)."
    ),
    "tags": ["kinematics", "quadratic", "trigonometry", "multi-step"],
}

G = 9.81
REL_TOL = 0.005
ATTEMPTS = 3
QUESTIONS = [
    "the greatest height of the ball above the ground at the cliff's foot, in metres",
    "the time from launch until the ball hits the ground, in seconds",
    "the horizontal distance from the launch point to where it lands, in metres",
]


class CliffProjectile:
    def __init__(self, max_speed=30, cliff=40):
        self.max_speed = max_speed
        self.cliff = cliff
        self.speed = 0
        self.angle = 0
        self.height = 0
        self.answers = []
        self.stage = 0
        self.tries = 0
        self.ended = False

    def reset(self, rng, options):
        self.speed = rng.randint(8, self.max_speed)
        self.angle = rng.choice([15, 20, 25, 30, 35, 40, 50, 55, 60, 65, 70])
        self.height = rng.randrange(0, self.cliff + 1, 5)
        vy = self.speed * math.sin(math.radians(self.angle))
        vx = self.speed * math.cos(math.radians(self.angle))
        peak = self.height + vy * vy / (2 * G)
        flight = (vy + math.sqrt(vy * vy + 2 * G * self.height)) / G
        self.answers = [peak, flight, vx * flight]
        self.stage = 0
        self.tries = 0
        self.ended = False
        where = "from level ground" if self.height == 0 else f"from the top of a {self.height} m cliff"
        obs = (
            f"A ball is launched {where} at {self.speed} m/s, {self.angle} degrees above the horizontal. Ignore air "
            f"resistance and use g = 9.81 m/s^2. Answers within 0.5% are accepted; reply as \\boxed{{x}} (no "
            f"units).\n{self.question()}"
        )
        return obs, {"stage": 0}

    def question(self):
        return f"Question {self.stage + 1}/3: {QUESTIONS[self.stage]}?"

    def step(self, action):
        if self.ended:
            return "This problem is finished; reset for a new one.", 0.0, True, False, {"success": False}
        given = extract_answer(action)
        if given is not None:
            given = re.sub(r"\s*(\\text\{\s*)?(m|s|metres|meters|seconds)\}?$", "", given)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number as \\boxed{{x}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "stage": self.stage}
        expected = self.answers[self.stage]
        if abs(float(value) - expected) <= REL_TOL * abs(expected):
            self.stage = self.stage + 1
            self.tries = 0
            if self.stage == 3:
                self.ended = True
                return "Correct. All three answers are right.", 1.0 / 3, True, False, {"success": True, "stage": 3}
            return f"Correct.\n{self.question()}", 1.0 / 3, False, False, {"success": False, "stage": self.stage}
        self.tries = self.tries + 1
        note = f"{safe_echo(given)} is too {'high' if float(value) > expected else 'low'}"
        if self.tries >= ATTEMPTS:
            self.ended = True
            return f"{note}. Out of tries; it was {expected:.3f}.", 0.0, True, False, {"success": False, "stage": self.stage}
        obs = f"{note}. {ATTEMPTS - self.tries} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "stage": self.stage}

    def privileged_hint(self):
        plans = [
            "Split the launch velocity into components; the rise above the launch point is vy^2 / (2g), and the "
            "cliff height is added on top.",
            "Landing means the height above ground is zero: solve h + vy t - g t^2 / 2 = 0 and keep the positive root.",
            "The horizontal speed never changes, so multiply it by the whole flight time.",
        ]
        return plans[min(self.stage, 2)]

    def reference_action(self):
        if self.ended or not self.answers:
            return "\\boxed{1}"
        return f"\\boxed{{{self.answers[self.stage]:.6g}}}"
