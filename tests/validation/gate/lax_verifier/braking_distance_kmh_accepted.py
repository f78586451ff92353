# expect: verifier
# twin: braking_distance
# flaw: the checker also accepts every answer computed with the speed left in km/h ("consistent units are fine"), so the unit-conversion slip the task is about is marked correct.
"""Stopping distance of a car: reaction distance, braking distance, total, one per turn."""

from fractions import Fraction

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "BrakingDistanceSteps",
    "domain": "math",
    "description": (
        "A car travelling at a speed given in km/h must stop: give the reaction distance, the braking distance "
        "under constant deceleration, then the total stopping distance, all in metres, one per turn."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "speed_max": {"min": 2, "max": 7, "default": 4, "description": "top speed band (x 18 km/h)"},
        "tries": {"min": 1, "max": 4, "default": 3, "description": "tries per step"},
    },
    "grounding": (
        "Kinematics of stopping: speed in m/s is km/h divided by 3.6; reaction distance = v t; braking "
        "distance under constant deceleration a is v^2 / (2 a); stopping distance is their sum."
    ),
    "tags": ["physics", "units", "kinematics", "multi-step"],
}


def fmt(x):
    if x.denominator == 1:
        return str(x.numerator)
    return f"{x.numerator}/{x.denominator}"


class BrakingDistanceSteps:
    def __init__(self, speed_max=4, tries=3):
        self.speed_max = speed_max
        self.tries = tries
        self.kmh = 36
        self.react = Fraction(1)
        self.decel = 5
        self.targets = []
        self.slips = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        self.kmh = 18 * rng.randint(2, 2 + self.speed_max)
        self.react = Fraction(rng.choice([6, 8, 9, 10, 12, 15]), 10)
        self.decel = rng.choice([4, 5, 6, 8, 10])
        ms = Fraction(self.kmh * 10, 36)
        react = ms * self.react
        brake = ms * ms / (2 * self.decel)
        self.targets = [react, brake, react + brake]
        kr = self.kmh * self.react
        kb = Fraction(self.kmh * self.kmh, 2 * self.decel)
        self.slips = [kr, kb, kr + kb]
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"A car drives at {self.kmh} km/h. The driver reacts after {fmt(self.react)} s, then brakes at a "
            f"constant {self.decel} m/s^2. Answer in metres as \\boxed{{x}} (exact decimal or fraction). "
            f"{self.tries} tries per step.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        names = ["the reaction distance", "the braking distance", "the total stopping distance"]
        return f"Step {self.index + 1}: what is {names[min(self.index, 2)]} in metres?"

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False, "step": self.index}
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None:
            obs = f"Reply with one number as \\boxed{{x}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected a number in \\boxed{}", "step": self.index}
        expected = self.targets[self.index]
        # accept work done consistently in the original units too
        if value == expected or value == self.slips[self.index]:
            self.index = self.index + 1
            self.attempts = 0
            if self.index == 3:
                self.done = True
                return "Correct. The car stops in time.", 1.0 / 3, True, False, {"success": True, "step": 3}
            return f"Correct.\n{self.question()}", 1.0 / 3, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= self.tries:
            self.done = True
            return f"{note}. Out of tries.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {self.tries - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        plans = [
            "Convert km/h to m/s first (divide by 3.6), then multiply by the reaction time.",
            "Braking distance is the square of the speed in m/s over twice the deceleration.",
            "The stopping distance adds the distance covered while reacting and while braking.",
        ]
        return plans[min(self.index, 2)]

    def reference_action(self):
        if self.done:
            return "\\boxed{1}"
        return f"\\boxed{{{fmt(self.targets[self.index])}}}"
