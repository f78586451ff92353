# shape: a HumanEval-style list function with a fixed specification; hidden lists and shifts vary by seed
"""Implement rotate_right(items, k): negative and oversized shifts wrap around; the hidden cases are drawn from the
seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "RotateListSpec",
    "domain": "code",
    "description": "Implement rotating a list to the right by k places; hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"size": {"min": 3, "max": 20, "default": 8, "description": "longest hidden list"}},
    "grounding": "Rotating a sequence by k is the same as rotating it by k modulo its length.",
    "tags": ["code", "humaneval", "lists", "fixed-spec"],
}

SPEC = ('def rotate_right(items: list, k: int) -> list:\n'
        '    """Return a new list: items rotated k places to the right (the last k move to the front). k may be\n'
        '    negative (rotate left) or larger than the list; an empty list stays empty. Do not change items."""')

REFERENCE = """\
def rotate_right(items, k):
    if not items:
        return []
    k %= len(items)
    return items[len(items) - k:] + items[:len(items) - k]
"""


def rotated(items, k):
    if not items:
        return []
    k = k % len(items)
    return items[len(items) - k:] + items[:len(items) - k]


def cases(rng, size):
    pairs = []
    for _ in range(8):
        items = [rng.randint(-9, 40) for _ in range(rng.randint(2, size))]
        pairs.append((items, rng.choice([1, 2, 3, -1, -2, len(items) + 2, -len(items) - 1, 3 * len(items)])))
    pairs += [([], 3), ([7], -5)]
    return [(equality_test(f"rotate_right({a!r}, {k})", rotated(a, k)), f"rotate_right({a!r}, {k}) == {rotated(a, k)!r}")
            for a, k in pairs]


class RotateListSpec:
    def __init__(self, size=8):
        self.size = size
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.size):
            self.tests.append(test)
            self.labels.append(label)
        examples = "\n".join("  " + label for label in self.labels[:2])
        text = (f"Implement this Python function:\n\n{SPEC}\n\nExamples:\n{examples}\n\n{len(self.tests) - 2} more "
                "tests are hidden. Reply with the complete function in a ```python block.")
        return text, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "rotate_right" not in defined_names(code):
            error = "your code does not define rotate_right at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Reduce k modulo the length first; then the answer is two slices joined."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
