# shape: an MBPP-style string function with a fixed specification; hidden strings vary by seed
"""Implement run_length_encode(s): each maximal run of one character becomes its length then the character; the
hidden strings are drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "RunLengthEncodeSpec",
    "domain": "code",
    "description": "Implement run-length encoding of a string; hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"length": {"min": 4, "max": 30, "default": 12, "description": "longest hidden string"}},
    "grounding": "Run-length encoding: a run of n equal characters is written as n followed by the character.",
    "tags": ["code", "mbpp", "strings", "fixed-spec"],
}

SPEC = ('def run_length_encode(s: str) -> str:\n'
        '    """Replace each maximal run of one character by its length (in decimal) followed by the character:\n'
        '    \'aaabcc\' -> \'3a1b2c\', \'\' -> \'\'. Runs may be longer than 9 (\'x\' * 12 -> \'12x\')."""')

REFERENCE = """\
def run_length_encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(f'{j - i}{s[i]}')
        i = j
    return ''.join(out)
"""


def encode(s):
    out, i = [], 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j = j + 1
        out.append(f"{j - i}{s[i]}")
        i = j
    return "".join(out)


def cases(rng, length):
    texts = []
    for _ in range(8):
        runs = [rng.choice("abcxyz ") * rng.randint(1, 4) for _ in range(rng.randint(1, max(1, length // 3)))]
        texts.append("".join(runs)[:length])
    texts += ["", "q" * rng.randint(10, 14)]
    return [(equality_test(f"run_length_encode({t!r})", encode(t)), f"run_length_encode({t!r}) == {encode(t)!r}")
            for t in texts]


class RunLengthEncodeSpec:
    def __init__(self, length=12):
        self.length = length
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.length):
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
        if error is None and "run_length_encode" not in defined_names(code):
            error = "your code does not define run_length_encode at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Walk the string once, extending the current run while the next character is the same."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
