# shape: a weekday answer whose verifier also accepts the standard abbreviations (Mon, Tue, Tues, Thu, Thur, ...)
"""Which weekday is it a given number of days after a given weekday? Full names and their standard abbreviations
are accepted."""

ENV_SPEC = {
    "name": "WeekdayAfter",
    "domain": "math",
    "description": "Count days forward from a weekday and name the weekday reached (abbreviations accepted).",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"span": {"min": 10, "max": 1000, "default": 400, "description": "largest number of days"}},
    "grounding": "The seven-day week repeats, so counting forward reduces to the remainder modulo 7.",
    "tags": ["calendar", "modular-arithmetic", "words"],
}

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ABBREVIATIONS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5,
                 "sun": 6}


def parse_day(text):
    word = text.strip().strip(".!").lower()
    for i, day in enumerate(DAYS):
        if word == day.lower():
            return i
    return ABBREVIATIONS.get(word)


class WeekdayAfter:
    def __init__(self, span=400):
        self.span = span
        self.start = 0
        self.days = 0

    def reset(self, rng, options):
        self.start = rng.randint(0, 6)
        self.days = rng.randint(8, self.span)
        return (f"Today is {DAYS[self.start]}. What day of the week will it be in {self.days} days? Answer with the "
                "name of the day (e.g. Friday or Fri)."), {}

    def step(self, action):
        day = parse_day(action)
        if day is None:
            return "Not a day of the week.", 0.0, True, False, {"success": False, "format_error": "expected a weekday"}
        ok = day == (self.start + self.days) % 7
        return ("Correct." if ok else "Incorrect."), (1.0 if ok else 0.0), True, False, {"success": ok}

    def privileged_hint(self):
        return f"Only the remainder of {self.days} divided by 7 matters."

    def reference_action(self):
        return DAYS[(self.start + self.days) % 7]
