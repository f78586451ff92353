# shape: an MBPP-style dict function with a fixed specification; hidden dictionaries vary by seed
"""Implement invert(mapping): group the keys by their value, each group sorted; the hidden dictionaries are drawn
from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "InvertMappingSpec",
    "domain": "code",
    "description": "Implement inverting a dictionary into value -> sorted keys; hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"keys": {"min": 3, "max": 16, "default": 7, "description": "keys per hidden dictionary"}},
    "grounding": "Inverting a many-to-one mapping gives a one-to-many mapping: each value maps to the keys that had it.",
    "tags": ["code", "mbpp", "dicts", "fixed-spec"],
}

SPEC = ('def invert(mapping: dict[str, int]) -> dict[int, list[str]]:\n'
        '    """Return a dict from each value of mapping to the sorted list of keys having that value. An empty\n'
        '    mapping gives {}."""')

REFERENCE = """\
def invert(mapping):
    out = {}
    for key, value in mapping.items():
        out.setdefault(value, []).append(key)
    return {value: sorted(keys) for value, keys in out.items()}
"""

NAMES = ["ann", "bob", "cyd", "dee", "eli", "fay", "gus", "hal", "ivy", "jon", "kim", "lou", "max", "ned", "oda", "pia"]


def inverted(mapping):
    out = {}
    for key, value in mapping.items():
        out.setdefault(value, []).append(key)
    return {value: sorted(keys) for value, keys in out.items()}


def cases(rng, keys):
    found = []
    for _ in range(7):
        names = rng.sample(NAMES, rng.randint(2, keys))
        found.append({name: rng.randint(1, 4) for name in names})
    found += [{}, {"solo": 9}]
    return [(equality_test(f"invert({m!r})", inverted(m)), f"invert({m!r}) == {inverted(m)!r}") for m in found]


class InvertMappingSpec:
    def __init__(self, keys=7):
        self.keys = keys
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.keys):
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
        if error is None and "invert" not in defined_names(code):
            error = "your code does not define invert at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Collect keys into a list per value, then sort each list at the end."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
