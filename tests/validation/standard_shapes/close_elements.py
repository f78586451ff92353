# shape: a HumanEval-style fixed specification whose hidden tests vary by seed
"""Implement has_close_elements(numbers, threshold): the specification is the same on every seed, the hidden
tests are drawn from the seed, and one general solution passes them all."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "CloseElementsSpec",
    "domain": "code",
    "description": "Implement a function that says whether any two numbers in a list are closer than a threshold; "
                   "hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"hidden_tests": {"min": 3, "max": 12, "default": 8, "description": "hidden test cases"}},
    "grounding": "HumanEval problem 0: check whether any two numbers in a list are closer than a threshold.",
    "tags": ["code", "humaneval", "fixed-spec"],
}

SPEC = ("def has_close_elements(numbers: list[float], threshold: float) -> bool:\n"
        "    \"\"\"Return True if some two numbers at different positions in the list differ by strictly less than\n"
        "    threshold, else False. An empty or one-element list has no close pair.\"\"\"")

REFERENCE = """\
def has_close_elements(numbers, threshold):
    ordered = sorted(numbers)
    for a, b in zip(ordered, ordered[1:]):
        if b - a < threshold:
            return True
    return False
"""


def close(numbers, threshold):
    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])


class CloseElementsSpec:
    def __init__(self, hidden_tests=8):
        self.hidden_tests = hidden_tests
        self.tests = []
        self.labels = []
        self.shown = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        cases = [([], 0.5), ([1.0], 0.5)]
        while len(cases) < self.hidden_tests + 2:
            numbers = [rng.randint(0, 40) / 4 for _ in range(rng.randint(2, 7))]
            cases.append((numbers, rng.choice([0.1, 0.25, 0.3, 0.5, 1.0])))
        self.tests, self.labels = [], []
        for numbers, threshold in cases:
            call = f"has_close_elements({numbers!r}, {threshold!r})"
            expected = close(numbers, threshold)
            self.tests.append(equality_test(call, expected))
            self.labels.append(f"{call} == {expected!r}")
        self.shown = self.tests[2:4]
        return self._text(), {"tests": len(self.tests)}

    def _text(self):
        examples = "\n".join("  " + label for label in self.labels[2:4])
        return (f"Implement this Python function:\n\n{SPEC}\n\nExamples:\n{examples}\n\n{len(self.tests) - 2} more "
                "tests are hidden. Reply with the complete function in a ```python block.")

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "has_close_elements" not in defined_names(code):
            error = "your code does not define has_close_elements() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.shown, self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "After sorting, only neighbours can be the closest pair; compare with strictly less than."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
