# shape: multi-step clock-angle problem (hour hand, minute hand, smaller angle, minutes to the next overlap), tolerance 0.01, fractions accepted
"""Clock-hand angles step by step: hour hand, minute hand, the angle between them, then the time to the next overlap."""

import re
from fractions import Fraction

from spade_domains.math.verify import extract_answer, normalize_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "ClockHandsAngle",
    "domain": "math",
    "description": (
        "An analogue clock shows a seed-drawn time (h:mm, or h:mm:ss at higher difficulty). The agent gives, one "
        "per turn, the hour hand's angle from 12, the minute hand's angle from 12 (both clockwise, in degrees), "
        "the smaller angle between the hands, and the minutes until the hands next overlap. Three tries per step "
        "with too high / too low feedback."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 14,
    "players": 1,
    "difficulty": {
        "seconds": {"min": 0, "max": 1, "default": 0, "description": "1: the time has a seconds part"},
        "steps": {"min": 3, "max": 4, "default": 4, "description": "4 adds the minutes to the next overlap"},
    },
    "grounding": (
        "Clock-angle problems (MATHCOUNTS, GRE): the minute hand turns 6 degrees per minute (0.1 per second), the "
        "hour hand 30 degrees per hour plus 0.5 per minute; the angle between the hands is the difference taken "
        "at most 180 degrees; the minute hand gains 5.5 degrees per minute on the hour hand, so the hands meet "
        "every 720/11 minutes."
    ),
    "tags": ["math", "angles", "rates", "multi-step"],
}

ATTEMPTS = 3
TOL = Fraction(1, 100)
NUMBER = re.compile(r"^\s*([-+]?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:[A-Za-z\\^{}\u00b0 ]*)$")


def read_number(text):
    given = extract_answer(text)
    if given is None:
        return None, None
    value = to_number(normalize_answer(given))
    if value is None:
        m = NUMBER.match(given)
        if m:
            value = to_number(m.group(1).replace(",", ""))
    return given, value


class ClockHandsAngle:
    def __init__(self, seconds=0, steps=4):
        self.with_seconds = seconds
        self.n_steps = steps
        self.hour = 12
        self.minute = 0
        self.second = 0
        self.answers = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        self.hour = rng.randint(1, 12)
        self.minute = rng.randint(1, 59)
        self.second = rng.randint(1, 59) if self.with_seconds else 0
        elapsed = Fraction(self.minute) + Fraction(self.second, 60)
        hour_angle = (self.hour % 12) * 30 + elapsed / 2
        minute_angle = elapsed * 6
        diff = (hour_angle - minute_angle) % 360
        while diff == 0 or diff == 180:
            self.minute = rng.randint(1, 59)
            elapsed = Fraction(self.minute) + Fraction(self.second, 60)
            hour_angle = (self.hour % 12) * 30 + elapsed / 2
            minute_angle = elapsed * 6
            diff = (hour_angle - minute_angle) % 360
        between = diff if diff <= 180 else 360 - diff
        catch_up = diff / Fraction(11, 2)
        self.answers = [hour_angle, minute_angle, between, catch_up][: self.n_steps]
        self.index = 0
        self.attempts = 0
        self.done = False
        shown = f"{self.hour}:{self.minute:02d}" + (f":{self.second:02d}" if self.with_seconds else "")
        obs = (
            f"An analogue clock shows {shown}. Both hands move smoothly. Angles are in degrees, measured clockwise "
            "from the 12 o'clock mark. Answer one step at a time as \\boxed{number}; answers within 0.01 are "
            "accepted (fractions like 1/11 are fine).\n" + self.question()
        )
        return obs, {"step": 0, "steps": len(self.answers)}

    def question(self):
        qs = [
            "Step 1: the angle of the hour hand from 12 (0 to 360).",
            "Step 2: the angle of the minute hand from 12 (0 to 360).",
            "Step 3: the smaller angle between the two hands (0 to 180).",
            "Step 4: the number of minutes until the two hands next point the same way.",
        ]
        return qs[self.index]

    def step(self, action):
        if self.done:
            return "The problem is finished.", 0.0, True, False, {"success": False, "step": self.index}
        given, value = read_number(action)
        if value is None:
            error = "expected one number such as \\boxed{127.5}"
            return f"Format error: {error}.\n{self.question()}", 0.0, False, False, {
                "success": False, "format_error": error, "step": self.index}
        expected = self.answers[self.index]
        if abs(value - expected) <= TOL:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.answers)
            if self.index == len(self.answers):
                self.done = True
                return "Correct. All steps done.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries for this step.", 0.0, True, False, {"success": False, "step": self.index}
        return f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}", 0.0, False, False, {
            "success": False, "step": self.index}

    def privileged_hint(self):
        hints = [
            "The hour hand moves 30 degrees per hour and also 0.5 degrees for every minute past the hour "
            "(1/120 degree per second); 12 o'clock counts as 0 hours.",
            "The minute hand moves 6 degrees per minute and 0.1 degree per second.",
            "Take the absolute difference of the two hand angles; if it is more than half a turn, use the rest of "
            "the full turn instead.",
            "The minute hand gains 5.5 degrees per minute on the hour hand; divide the clockwise gap from the "
            "minute hand forward to the hour hand by that rate.",
        ]
        return hints[min(self.index, len(hints) - 1)]

    def reference_action(self):
        if self.done or not self.answers:
            return "\\boxed{1}"
        value = self.answers[self.index]
        if value.denominator == 1:
            return f"\\boxed{{{value.numerator}}}"
        return f"\\boxed{{{value.numerator}/{value.denominator}}}"
