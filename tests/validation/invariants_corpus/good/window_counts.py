# expect: accepted
"""Write one small list function (drawn from a family) that hidden tests check by exact values."""

from spade_domains.code.verify import defined_names, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "WindowCounts",
    "domain": "code",
    "description": "Implement a short list function from its description; tests check exact results.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"tests": {"min": 3, "max": 8, "default": 6, "description": "tests run"}},
    "grounding": "Introductory programming exercises over lists of integers and a threshold.",
    "tags": ["code", "lists"],
}

TASKS = [
    ("count_above", "return how many values in xs are greater than k",
     "def count_above(xs, k):\n    return sum(1 for x in xs if x > k)\n", lambda xs, k: sum(1 for x in xs if x > k)),
    ("sum_below", "return the sum of the values in xs that are less than k",
     "def sum_below(xs, k):\n    return sum(x for x in xs if x < k)\n", lambda xs, k: sum(x for x in xs if x < k)),
    ("first_index", "return the index of the first value equal to k, or -1",
     "def first_index(xs, k):\n    for i, x in enumerate(xs):\n        if x == k:\n            return i\n    return -1\n",
     lambda xs, k: xs.index(k) if k in xs else -1),
]


class WindowCounts:
    def __init__(self, tests=6):
        self.count = tests
        self.task = TASKS[0]
        self.tests = []

    def reset(self, rng, options):
        self.task = TASKS[rng.randrange(len(TASKS))]
        name, text, _, solve = self.task
        self.tests = []
        shown = ""
        for i in range(self.count):
            xs = [rng.randint(-9, 9) for _ in range(rng.randint(0, 7))]
            k = rng.choice(xs) if xs and i % 2 else rng.randint(-9, 9)
            self.tests.append(equality_test(f"{name}({xs!r}, {k!r})", solve(xs, k)))
            if i == 1:
                shown = f"{name}({xs!r}, {k!r}) == {solve(xs, k)!r}"
        return (f"Write a Python function {name}(xs, k) that should {text}. Example: {shown}. Reply with the code "
                "in a ```python block."), {}

    def step(self, action):
        code, error = parse_code(action)
        if error is None and self.task[0] not in defined_names(code):
            error = f"define {self.task[0]}()"
        if error is not None:
            return f"Format error: {error}.", 0.0, True, False, {"success": False, "format_error": error}
        result = run_tests(code, self.tests, 5.0)
        ok = result["error"] is None and result["passed"] == len(self.tests)
        return (f"{result['passed']} of {len(self.tests)} tests pass."), (1.0 if ok else 0.0), True, False, \
            {"success": ok}

    def privileged_hint(self):
        return "One pass over the list with a comparison against k is enough."

    def reference_action(self):
        return "```python\n" + self.task[2] + "```"
