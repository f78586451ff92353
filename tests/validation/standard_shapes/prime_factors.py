# shape: a HumanEval-style math function with a fixed specification; hidden numbers vary by seed
"""Implement prime_factors(n): the prime factors in ascending order with multiplicity; the hidden numbers are
drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "PrimeFactorsSpec",
    "domain": "code",
    "description": "Implement prime factorisation of an integer; hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"bits": {"min": 6, "max": 30, "default": 16, "description": "bits of the largest hidden number"}},
    "grounding": "The fundamental theorem of arithmetic: every integer above 1 is a unique product of primes.",
    "tags": ["code", "humaneval", "math", "fixed-spec"],
}

SPEC = ('def prime_factors(n: int) -> list[int]:\n'
        '    """For n >= 2 return its prime factors in ascending order, each as often as it divides n:\n'
        '    12 -> [2, 2, 3], 13 -> [13]."""')

REFERENCE = """\
def prime_factors(n):
    out = []
    d = 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out
"""


def factors(n):
    out, d = [], 2
    while d * d <= n:
        while n % d == 0:
            out.append(d)
            n = n // d
        d = d + 1
    if n > 1:
        out.append(n)
    return out


def cases(rng, bits):
    numbers = [rng.randint(2, 2 ** bits) for _ in range(7)]
    numbers += [rng.choice([2, 3, 5, 7]) ** rng.randint(2, 5), 97 * rng.choice([89, 101, 103]), 2]
    return [(equality_test(f"prime_factors({n})", factors(n)), f"prime_factors({n}) == {factors(n)!r}") for n in numbers]


class PrimeFactorsSpec:
    def __init__(self, bits=16):
        self.bits = bits
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.bits):
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
        if error is None and "prime_factors" not in defined_names(code):
            error = "your code does not define prime_factors at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Trial-divide by d while d*d <= n; whatever is left above 1 is itself prime."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
