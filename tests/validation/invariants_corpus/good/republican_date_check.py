# expect: accepted
"""Validate dates of the French Republican calendar (12 months of 30 days plus the complementary days)."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "RepublicanDateCheck",
    "domain": "code",
    "description": (
        "Write is_valid_republican(day, month, year) for the French Republican calendar: twelve months of 30 days, "
        "then five complementary days (six in a sextile year). Hidden tests mix valid and invalid dates."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 6, "max": 20, "default": 12, "description": "number of hidden tests"},
        "edge_share": {"min": 0, "max": 3, "default": 2, "description": "edge dates per kind (month ends, day 6)"},
    },
    "grounding": (
        "The Republican calendar adopted by the Convention in 1793 counted years from the proclamation of the "
        "Republic in September 1792 (An I) until Napoleon abolished it; months had 30 days and the year ended "
        "with complementary days (sansculottides)."
    ),
    "tags": ["code", "dates", "validation", "predicates"],
}

SPEC = (
    "Write is_valid_republican(day, month, year) -> bool for the French Republican calendar. year is valid from 1 "
    "to 14 inclusive (An I to An XIV). month 1-12 are the ordinary months, each with days 1-30; month 13 stands for "
    "the complementary days, numbered 1-5, or 1-6 in a sextile year. A year is sextile when year % 4 == 3. All "
    "arguments are ints; return True for a real date and False otherwise (never raise)."
)

REFERENCE = '''def is_valid_republican(day, month, year):
    if not 1 <= year <= 14:
        return False
    if 1 <= month <= 12:
        return 1 <= day <= 30
    if month == 13:
        return 1 <= day <= (6 if year % 4 == 3 else 5)
    return False
'''


def trusted(day, month, year):
    if not 1 <= year <= 14:
        return False
    if 1 <= month <= 12:
        return 1 <= day <= 30
    if month == 13:
        return 1 <= day <= (6 if year % 4 == 3 else 5)
    return False


class RepublicanDateCheck:
    def __init__(self, hidden=12, edge_share=2):
        self.hidden = hidden
        self.edge_share = edge_share
        self.cases = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.passed_ever = []
        self.turn = 0
        self.finished = False

    def reset(self, rng, options):
        cases = [(30, rng.randint(1, 12), rng.randint(1, 14)), (6, 13, rng.choice([1, 2, 4, 5, 6, 8]))]
        for _ in range(self.edge_share):
            cases.append((31, rng.randint(1, 12), rng.randint(1, 14)))
            cases.append((6, 13, rng.choice([3, 7, 11])))
            cases.append((rng.randint(1, 5), 13, rng.randint(1, 14)))
            cases.append((rng.randint(1, 30), rng.randint(1, 12), rng.choice([0, 15])))
        while len(cases) < self.hidden + 2 + 4 * self.edge_share:
            case = (rng.randint(0, 32), rng.randint(0, 14), rng.randint(0, 15))
            if case not in cases:
                cases.append(case)
        rng.shuffle(cases)
        self.cases = cases
        self.tests = [equality_test(f"is_valid_republican{c!r}", trusted(*c)) for c in cases]
        self.labels = [f"is_valid_republican{c!r} == {trusted(*c)!r}" for c in cases]
        self.visible = self.tests[:2]
        self.passed_ever = [False] * len(self.tests)
        self.turn = 0
        self.finished = False
        return self._prompt(), {"tests": len(self.tests)}

    def _prompt(self):
        shown = "\n".join("  " + label for label in self.labels[:2])
        return (
            f"{SPEC}\nShown tests ({len(self.tests) - 2} more are hidden):\n{shown}\n"
            f"Reply with the function in a ```python block."
        )

    def step(self, action):
        self.turn = self.turn + 1
        out_of_turns = self.turn >= ENV_SPEC["max_turns"]
        if self.finished:
            return "Episode finished.", 0.0, True, False, {"success": False}
        code, problem = parse_code(action)
        if problem is None and "is_valid_republican" not in defined_names(code):
            problem = "your code must define is_valid_republican(day, month, year)"
        if problem is not None:
            info = {"success": False, "format_error": problem, "action_is_valid": False}
            return f"Format error: {problem}\n{self._prompt()}", 0.0, False, out_of_turns, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None:
            for i, item in enumerate(result["results"]):
                if item["ok"]:
                    self.passed_ever[i] = True
        done = sum(self.passed_ever)
        info = {"success": False, "passed": result["passed"], "covered": done, "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.finished = True
            info["success"] = True
            return "All tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        obs = f"{feedback}\nTests passed so far: {done}/{len(self.tests)}. Send an improved function."
        return obs, 0.0, False, out_of_turns, info

    def privileged_hint(self):
        return (
            "Check the year range first, then split on the month: ordinary months all have 30 days; month 13 "
            "depends on whether the year is sextile. Anything else is invalid."
        )

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
