# shape: a parser with a fixed specification (Roman numerals, subtractive forms); hidden numerals vary by seed
"""Implement roman_to_int(text) for standard Roman numerals from I to MMMCMXCIX; the hidden numerals are drawn
from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "RomanNumeralParser",
    "domain": "code",
    "description": "Implement parsing Roman numerals with subtractive pairs; hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"largest": {"min": 40, "max": 3999, "default": 2000, "description": "largest hidden value"}},
    "grounding": "Roman numerals: I V X L C D M are 1 5 10 50 100 500 1000; a smaller symbol before a larger one is subtracted.",
    "tags": ["code", "parser", "roman", "fixed-spec"],
}

SPEC = ('def roman_to_int(text: str) -> int:\n'
        '    """The value of a standard Roman numeral (I=1, V=5, X=10, L=50, C=100, D=500, M=1000; IV, IX, XL, XC,\n'
        '    CD and CM subtract), e.g. \'MCMXCIV\' -> 1994. Inputs are valid numerals from 1 to 3999."""')

REFERENCE = """\
def roman_to_int(text):
    values = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}
    total = 0
    for i, ch in enumerate(text):
        value = values[ch]
        if i + 1 < len(text) and values[text[i + 1]] > value:
            total -= value
        else:
            total += value
    return total
"""

SYMBOLS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
           (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def numeral(n):
    out = []
    for value, text in SYMBOLS:
        while n >= value:
            out.append(text)
            n = n - value
    return "".join(out)


def cases(rng, largest):
    numbers = [rng.randint(1, largest) for _ in range(8)] + [rng.choice([4, 9, 14, 40, 90, 400, 900]), 3999 if largest > 3000 else 39]
    return [(equality_test(f"roman_to_int({numeral(n)!r})", n), f"roman_to_int({numeral(n)!r}) == {n}") for n in numbers]


class RomanNumeralParser:
    def __init__(self, largest=2000):
        self.largest = largest
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.largest):
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
        if error is None and "roman_to_int" not in defined_names(code):
            error = "your code does not define roman_to_int at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Read left to right; a symbol smaller than the one after it is subtracted instead of added."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
