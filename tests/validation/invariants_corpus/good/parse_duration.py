# expect: accepted
"""Parse a compact duration such as '1h30m15s' into seconds."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "ParseCompactDuration",
    "domain": "code",
    "description": (
        "Implement parse_duration(text): convert strings like '2h5m', '90s' or '1d4h' into a number of "
        "seconds. Hidden tests check it; each turn reports failing tests."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 12, "default": 6, "description": "random hidden tests"},
        "shown_tests": {"min": 1, "max": 4, "default": 2, "description": "worked examples shown"},
    },
    "grounding": (
        "Compact duration strings as used by Go time.ParseDuration, systemd and cron-like tools: a sequence of "
        "<integer><unit> pairs with units d, h, m, s, in any order, summed."
    ),
    "tags": ["code", "implement", "hidden-tests", "multi-turn"],
}

FUNC = "parse_duration"
SIGNATURE = "parse_duration(text: str) -> int"
SPEC = ("text is one or more <digits><unit> pairs with units d (86400 s), h (3600 s), m (60 s) and s, upper or "
        "lower case, possibly repeated or out of order, optionally separated by single spaces. Return the total "
        "number of seconds as an int.")
HINT = "Scan with a regular expression for (digits)(unit) pairs, ignore case, and sum value times the unit's seconds."

REFERENCE = """\
import re

def parse_duration(text):
    units = {'d': 86400, 'h': 3600, 'm': 60, 's': 1}
    return sum(int(n) * units[u.lower()] for n, u in re.findall(r'(\\d+)([dhmsDHMS])', text))
"""

def solve(text):
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    total = 0
    number = ""
    for ch in text:
        if ch.isdigit():
            number = number + ch
        elif ch.lower() in units and number:
            total = total + int(number) * units[ch.lower()]
            number = ""
    return total


def draw(rng):
    parts = []
    for unit in rng.sample("dhms", rng.randint(1, 4)):
        parts.append(f"{rng.randint(1, 120)}{rng.choice([unit, unit.upper()])}")
    return (rng.choice(["", " "]).join(parts),)


EDGES = [("0s",), ("1D",), ("90m 30m",), ("5s4h",)]


class ParseCompactDuration:
    def __init__(self, hidden_tests=6, shown_tests=2):
        self.hidden_tests = hidden_tests
        self.shown_tests = shown_tests
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        cases = []
        tries = 0
        while len(cases) < self.shown_tests + self.hidden_tests and tries < 500:
            tries = tries + 1
            args = draw(rng)
            if args not in cases and args not in EDGES:
                cases.append(args)
        cases = cases[: self.shown_tests] + EDGES + cases[self.shown_tests:]
        self.tests, self.labels, self.visible = [], [], []
        for i, args in enumerate(cases):
            call = f"{FUNC}({', '.join(repr(a) for a in args)})"
            expected = solve(*args)
            self.tests.append(equality_test(call, expected))
            self.labels.append(f"{call} == {expected!r}")
            if i < self.shown_tests:
                self.visible.append(self.tests[-1])
        return self.task_text(), {"tests": len(self.tests)}

    def task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (f"Implement {SIGNATURE}.\n{SPEC}\nExamples:\n{examples}\n"
                f"{len(self.tests) - len(self.visible)} hidden tests. Reply with a ```python block; "
                f"{ENV_SPEC['max_turns']} turns.")

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and FUNC not in defined_names(code):
            error = f"your code does not define {FUNC}() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.\n{self.task_text()}", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return HINT

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
