# expect: accepted
"""Merge several sorted lists into one sorted list."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "MergeSortedLists",
    "domain": "code",
    "description": (
        "Implement merge_sorted(lists): merge k non-decreasing integer lists into one non-decreasing list "
        "(duplicates kept). Hidden tests check it; each turn reports failing shown tests."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 12, "default": 6, "description": "random hidden tests"},
        "shown_tests": {"min": 1, "max": 4, "default": 2, "description": "worked examples shown"},
    },
    "grounding": (
        "The k-way merge step of merge sort: repeatedly take the smallest head among the lists (a heap of heads "
        "gives O(n log k)); the output is non-decreasing and keeps every element, duplicates included."
    ),
    "tags": ["code", "implement", "hidden-tests", "multi-turn"],
}

FUNC = "merge_sorted"
SIGNATURE = "merge_sorted(lists: list[list[int]]) -> list[int]"
SPEC = ("Each inner list is sorted in non-decreasing order. Return one new list holding every element of every "
        "list (duplicates kept), in non-decreasing order. Empty inner lists and an empty outer list are allowed.")
HINT = "Keep a heap of (value, list index, position) for the current head of each list and pop the smallest each time."

REFERENCE = """\
import heapq

def merge_sorted(lists):
    return list(heapq.merge(*lists))
"""

def solve(lists):
    out = []
    for part in lists:
        out = out + part
    return sorted(out)


def draw(rng):
    lists = []
    for _ in range(rng.randint(2, 4)):
        lists.append(sorted(rng.randint(-9, 20) for _ in range(rng.randint(0, 5))))
    return (lists,)


EDGES = [([],), ([[], []],), ([[1, 1], [1]],), ([[5], [1, 2, 3]],)]


class MergeSortedLists:
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
