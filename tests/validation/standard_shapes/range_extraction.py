# shape: HumanEval-style single function spec (range extraction) fixed across seeds, with seeded shown examples and seeded hidden tests.
"""Implement range extraction from a fixed docstring; the shown examples and hidden tests are drawn per seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "RangeExtractionSpec",
    "domain": "code",
    "description": (
        "Implement compress_ranges(nums) from a fixed specification: sort and deduplicate integers, write runs "
        "of three or more consecutive values as 'a-b' and the rest singly, comma-separated. The examples shown "
        "and the hidden tests (negatives, duplicates, unsorted input) are drawn per seed; failures are reported."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 14, "default": 8, "description": "hidden tests (edge cases first)"},
        "shown_tests": {"min": 1, "max": 4, "default": 2, "description": "worked examples in the task"},
    },
    "grounding": (
        "The classic range-extraction kata (as in MBPP/HumanEval-style exercises): consecutive integers form a "
        "range only when there are at least three of them; negative endpoints keep their minus sign, e.g. "
        "'-3--1'; input order and duplicates do not matter."
    ),
    "tags": ["code", "implement", "strings", "hidden-tests", "multi-turn"],
}

SIGNATURE = "compress_ranges(nums: list[int]) -> str"
SPEC = (
    "Return the distinct values of nums in increasing order as one string, comma-separated with no spaces. "
    "A run of three or more consecutive integers is written 'first-last' (e.g. '-3--1' or '4-7'); runs of one "
    "or two values are written one by one. nums may be unsorted and hold duplicates; [] gives ''."
)
EDGES = [[], [7], [1, 2], [1, 2, 3], [5, 4, 3, 3, 4, 5], [-3, -2, -1, 0, 2], [-1, 1], [10, 11, 13, 14, 15, 17]]
HINT = ("Sort the distinct values first; walk them while each value is the previous plus one, and only when the "
        "run has at least three values join its ends with '-'; a run of two is two separate items.")
REFERENCE = """\
def compress_ranges(nums):
    values = sorted(set(nums))
    parts = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i:j + 1])
        i = j + 1
    return ",".join(parts)
"""


def solve(nums):
    values = sorted(set(nums))
    parts = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j = j + 1
        if j - i >= 2:
            parts.append(f"{values[i]}-{values[j]}")
        else:
            parts.extend(str(v) for v in values[i:j + 1])
        i = j + 1
    return ",".join(parts)


def generate(rng):
    value = rng.randint(-12, 8)
    nums = []
    for _ in range(rng.randint(2, 5)):
        run = rng.choice([1, 2, 3, 3, 4, 5])
        nums.extend(range(value, value + run))
        value = value + run + rng.randint(1, 4)
    if rng.random() < 0.5:
        nums.extend(rng.sample(nums, rng.randint(1, 2)))
    if rng.random() < 0.6:
        rng.shuffle(nums)
    return nums


class RangeExtractionSpec:
    def __init__(self, hidden_tests=8, shown_tests=2):
        self.hidden_tests = hidden_tests
        self.shown_tests = shown_tests
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        seen = [repr(e) for e in EDGES]
        shown, hidden = [], []
        edges = list(EDGES)
        rng.shuffle(edges)
        hidden.extend(edges[: min(len(edges), max(1, self.hidden_tests // 2))])
        tries = 0
        while (len(shown) < self.shown_tests or len(hidden) < self.hidden_tests) and tries < 500:
            tries = tries + 1
            nums = generate(rng)
            if repr(nums) in seen:
                continue
            seen.append(repr(nums))
            if len(shown) < self.shown_tests:
                shown.append(nums)
            else:
                hidden.append(nums)
        self.tests, self.labels, self.visible = [], [], []
        for i, nums in enumerate(shown + hidden):
            call = f"compress_ranges({nums!r})"
            test = equality_test(call, solve(nums))
            self.tests.append(test)
            self.labels.append(f"{call} == {solve(nums)!r}")
            if i < len(shown):
                self.visible.append(test)
        return self.task_text(), {"function": "compress_ranges", "tests": len(self.tests)}

    def task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement this Python function:\n\ndef {SIGNATURE}:\n    \"\"\"{SPEC}\"\"\"\n\nExamples:\n{examples}\n\n"
            f"{len(self.tests) - len(self.visible)} hidden tests check more cases. Reply with the complete function "
            f"in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        out_of_turns = left <= 0
        code, error = parse_code(action if isinstance(action, str) else "")
        if error is None and "compress_ranges" not in defined_names(code):
            error = "your code does not define compress_ranges() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self.task_text()}"
            return obs, 0.0, out_of_turns, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass. Well done.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again. Turns left: {left}.", 0.0, out_of_turns, False, info

    def privileged_hint(self):
        return HINT

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
