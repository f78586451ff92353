# shape: a unit-ful numeric answer ("12.5 km"); the same distance in metres is also right
"""Distance from speed and time: the answer carries a unit, and any stated length unit the task allows (km or m)
is converted before comparing."""

import re

ENV_SPEC = {
    "name": "DistanceWithUnits",
    "domain": "math",
    "description": "Compute the distance travelled at a constant speed and answer with a unit (km or m).",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"minutes": {"min": 10, "max": 300, "default": 120, "description": "longest trip in minutes"}},
    "grounding": "Distance equals speed times time: at 15 km/h for 50 minutes one covers 12.5 km.",
    "tags": ["units", "rates", "distance"],
}

ANSWER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(km|kilometres|kilometers|m|metres|meters)\s*\.?\s*$", re.IGNORECASE)
METRES = {"km": 1000, "kilometres": 1000, "kilometers": 1000, "m": 1, "metres": 1, "meters": 1}


class DistanceWithUnits:
    def __init__(self, minutes=120):
        self.minutes_max = minutes
        self.speed = 0
        self.minutes = 0

    def reset(self, rng, options):
        self.speed = rng.choice([4, 5, 6, 12, 15, 18, 24, 30, 45, 60])
        self.minutes = rng.randrange(10, self.minutes_max + 1, 5)
        return (f"A cyclist rides at a steady {self.speed} km/h for {self.minutes} minutes. How far does she go? "
                "Answer with a number and a unit, in km or m (e.g. 7.25 km)."), {}

    def metres(self):
        return self.speed * self.minutes * 1000 // 60

    def step(self, action):
        found = ANSWER.match(action)
        if found is None:
            info = {"success": False, "format_error": "expected a number followed by km or m"}
            return "Answer as a number with a unit, e.g. 7.25 km.", 0.0, True, False, info
        value = float(found.group(1)) * METRES[found.group(2).lower()]
        ok = abs(value - self.speed * self.minutes * 1000 / 60) < 0.5
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return f"Turn the time into hours first: {self.minutes} minutes is {self.minutes}/60 of an hour."

    def reference_action(self):
        km = self.speed * self.minutes / 60
        return f"{round(km, 3):g} km"
