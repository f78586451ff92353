# expect: accepted
"""Balance of a savings account under periodic compound interest, rounded to cents."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "CompoundBalance",
    "domain": "code",
    "description": (
        "Implement final_balance(principal, rate_pct, years, periods): the balance after compounding "
        "periods times a year at an annual nominal rate, rounded to cents. Hidden tests check it."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 12, "default": 6, "description": "random hidden tests"},
        "shown_tests": {"min": 1, "max": 4, "default": 2, "description": "worked examples shown"},
    },
    "grounding": (
        "Compound interest: with nominal annual rate r compounded n times a year, the balance after t years is "
        "P (1 + r/n)^(n t); banks round the final balance to cents."
    ),
    "tags": ["code", "implement", "hidden-tests", "multi-turn"],
}

FUNC = "final_balance"
SIGNATURE = "final_balance(principal: float, rate_pct: float, years: int, periods: int) -> float"
SPEC = ("Return principal * (1 + rate_pct / 100 / periods) ** (periods * years), rounded to 2 decimals with "
        "round(). rate_pct is the nominal annual rate in percent; periods is compoundings per year (1, 4, 12, 365).")
HINT = "Convert the percentage to a fraction, divide by the periods per year, and raise to the total number of periods."

REFERENCE = """\
def final_balance(principal, rate_pct, years, periods):
    return round(principal * (1 + rate_pct / 100 / periods) ** (periods * years), 2)
"""

def solve(principal, rate_pct, years, periods):
    return round(principal * (1 + rate_pct / 100 / periods) ** (periods * years), 2)


def draw(rng):
    return (rng.randint(10, 500) * 10, rng.choice([1.5, 2.0, 2.5, 3.0, 3.25, 4.0, 4.5, 5.0]), rng.randint(1, 8),
            rng.choice([4, 12, 365]))


EDGES = [(1000, 5.0, 0, 12), (2500, 3.0, 1, 1), (100, 12.0, 1, 365)]


class CompoundBalance:
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
            self.tests.append(f"assert abs({call} - {expected!r}) < 0.006, 'got ' + repr({call})")
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
