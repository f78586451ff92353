# shape: a duration answer in hours and minutes ("3 h 20 min"); "200 min" and "3:20" are the same duration
"""How long a trip takes: the answer is a duration, accepted as hours and minutes, minutes alone, or h:mm."""

import re

ENV_SPEC = {
    "name": "TripDurationHoursMinutes",
    "domain": "math",
    "description": "Compute a train trip's duration from its distance and average speed; answer in hours and minutes.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"distance": {"min": 60, "max": 900, "default": 400, "description": "longest trip in km"}},
    "grounding": "Time equals distance over speed: 250 km at 75 km/h takes 3 h 20 min.",
    "tags": ["units", "durations", "rates"],
}

HOURS_MINUTES = re.compile(r"^\s*(\d+)\s*(?:h|hours?|hrs?)\s*(?:and\s*)?(\d+)\s*(?:min|minutes?|m)\s*\.?\s*$", re.IGNORECASE)
MINUTES = re.compile(r"^\s*(\d+)\s*(?:min|minutes?)\s*\.?\s*$", re.IGNORECASE)
HOURS = re.compile(r"^\s*(\d+)\s*(?:h|hours?|hrs?)\s*\.?\s*$", re.IGNORECASE)
CLOCK = re.compile(r"^\s*(\d+):([0-5]\d)\s*$")


def minutes_of(text):
    for pattern, scale in ((HOURS_MINUTES, 60), (CLOCK, 60)):
        found = pattern.match(text)
        if found is not None:
            return int(found.group(1)) * scale + int(found.group(2))
    found = MINUTES.match(text)
    if found is not None:
        return int(found.group(1))
    found = HOURS.match(text)
    return int(found.group(1)) * 60 if found is not None else None


class TripDurationHoursMinutes:
    def __init__(self, distance=400):
        self.distance_max = distance
        self.speed = 60
        self.minutes = 60

    def reset(self, rng, options):
        self.speed = rng.choice([40, 45, 60, 75, 80, 90, 120])
        self.minutes = rng.randrange(40, max(41, self.distance_max * 60 // self.speed), 20)
        return (f"A train covers {self.speed * self.minutes // 60} km at an average {self.speed} km/h. How long is "
                "the trip? Answer in hours and minutes, e.g. 2 h 40 min."), {}

    def step(self, action):
        minutes = minutes_of(action)
        if minutes is None:
            info = {"success": False, "format_error": "expected a duration such as 2 h 40 min"}
            return "Answer with a duration, e.g. 2 h 40 min.", 0.0, True, False, info
        ok = minutes == self.minutes
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return "Divide the distance by the speed to get hours, then turn the fraction of an hour into minutes."

    def reference_action(self):
        return f"{self.minutes // 60} h {self.minutes % 60} min"
