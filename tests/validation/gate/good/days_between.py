# expect: accepted
"""Implement days_between(a, b): whole days between two ISO dates; hidden tests in the sandbox."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "DaysBetween",
    "domain": "code",
    "description": (
        "Implement days_between(a, b) for ISO dates 'YYYY-MM-DD' in the proleptic Gregorian calendar: the "
        "absolute number of days between them. Examples are shown; hidden tests (leap-year edge cases and random "
        "dates) run in the sandbox."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 10, "default": 6, "description": "number of hidden tests"},
        "span": {"min": 1, "max": 400, "default": 50, "description": "largest gap in years between the two dates"},
    },
    "grounding": (
        "Gregorian calendar arithmetic: a year is a leap year when divisible by 4, except centuries not divisible "
        "by 400; day counts as in Python's datetime.date.toordinal or the days-from-civil algorithm."
    ),
    "tags": ["code", "dates", "calendar", "hidden-tests"],
}

SHOWN = 2
MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
EDGES = [
    ("2000-02-28", "2000-03-01"),
    ("1900-02-28", "1900-03-01"),
    ("2024-12-31", "2025-01-01"),
    ("2023-05-17", "2023-05-17"),
    ("2020-03-01", "2019-03-01"),
]


def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def month_length(y, m):
    if m == 2 and is_leap(y):
        return 29
    return MONTH_DAYS[m - 1]


def ordinal(text):
    y, m, d = int(text[0:4]), int(text[5:7]), int(text[8:10])
    y1 = y - 1
    days = y1 * 365 + y1 // 4 - y1 // 100 + y1 // 400
    for k in range(1, m):
        days = days + month_length(y, k)
    return days + d


def solve(a, b):
    return abs(ordinal(a) - ordinal(b))


def random_date(rng, low, high):
    y = rng.randint(low, high)
    m = rng.randint(1, 12)
    d = rng.randint(1, month_length(y, m))
    return f"{y:04d}-{m:02d}-{d:02d}"


class DaysBetween:
    def __init__(self, hidden_tests=6, span=50):
        self.hidden_tests = hidden_tests
        self.span = span
        self.tests = []
        self.labels = []
        self.visible = []
        self.hidden_labels = []

    def _gen(self, rng):
        start = rng.randint(1800, 2200)
        a = random_date(rng, start, start)
        b = random_date(rng, start, start + rng.randint(0, self.span))
        return (a, b) if rng.random() < 0.5 else (b, a)

    def reset(self, rng, options):
        shown = [self._gen(rng) for _ in range(SHOWN)]
        hidden = rng.sample(EDGES, min(len(EDGES), self.hidden_tests // 2))
        while len(hidden) < self.hidden_tests:
            pair = self._gen(rng)
            if pair not in hidden and pair not in shown:
                hidden.append(pair)
        self.tests, self.labels, self.visible = [], [], []
        for i, (a, b) in enumerate(shown + hidden):
            call = f"days_between({a!r}, {b!r})"
            expected = solve(a, b)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < SHOWN:
                self.visible.append(test)
        self.hidden_labels = self.labels[SHOWN:]
        return self._task_text(), {"tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[:SHOWN])
        return (
            "Implement this Python function:\n\ndef days_between(a: str, b: str) -> int:\n"
            "    \"\"\"a and b are dates 'YYYY-MM-DD' (years 1800-2700, proleptic Gregorian calendar). Return the "
            "absolute number of days from one to the other (0 for the same date).\"\"\"\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - SHOWN} hidden tests check more cases. Reply with the "
            f"complete function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        code, error = parse_code(action)
        if error is None and "days_between" not in defined_names(code):
            error = "your code does not define days_between() at the top level"
        if error is not None:
            obs = f"Format error: {error}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 0.5)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests), "action_is_valid": True}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again.", 0.0, False, False, info

    def privileged_hint(self):
        return (
            "Convert each date to a day number (days since a fixed epoch) and subtract: count 365 days per whole "
            "year plus one per leap year (divisible by 4, except centuries not divisible by 400), then the days of "
            "the whole months before, then the day. Tricky cases: a span across 29 February, and dates given "
            "in either order."
        )

    def reference_action(self):
        return (
            "```python\n"
            "def days_between(a, b):\n"
            "    def leap(y):\n"
            "        return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)\n"
            "    def ordinal(text):\n"
            "        y, m, d = int(text[0:4]), int(text[5:7]), int(text[8:10])\n"
            "        months = [31, 29 if leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]\n"
            "        p = y - 1\n"
            "        return p * 365 + p // 4 - p // 100 + p // 400 + sum(months[:m - 1]) + d\n"
            "    return abs(ordinal(a) - ordinal(b))\n"
            "```"
        )
