# shape: fixed-spec function (minimum insertions to balance a ()[]{} string, interval DP; stack greedy fails) ...
"""Minimum insertions to balance a multi-type bracket string: fixed specification, hidden tests drawn by seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "BracketInsertionRepair",
    "domain": "code",
    "description": (
        "Write min_insertions(s): the fewest bracket characters that must be inserted anywhere in s (made of "
        "()[]{}) to make it balanced, raising ValueError on other characters. Hidden seed-drawn strings test it, "
        "with feedback after each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "max_length": {"min": 6, "max": 16, "default": 12, "description": "longest hidden input string"},
        "hidden": {"min": 5, "max": 16, "default": 9, "description": "hidden test strings"},
    },
    "grounding": (
        "Balanced bracket sequences (the Dyck language over three bracket types) and the classic interval dynamic "
        "programme for the minimum insertions that repair a sequence: the first character is either matched by an "
        "inserted partner or by a later closing bracket of its own type, splitting the string in two."
    ),
    "tags": ["code", "dynamic-programming", "strings", "brackets", "multi-turn"],
}

SPEC_TEXT = (
    "Write min_insertions(s). s is a string of the characters ( ) [ ] { } only (it may be empty). Return the "
    "smallest number of bracket characters that must be INSERTED (at any positions; nothing may be deleted or "
    "changed) so that the result is balanced: every opener is closed by the matching closer of the same type, and "
    "pairs nest properly ('([)]' is not balanced). Raise ValueError if s holds any other character."
)

EXAMPLES = [("", 0), ("([)]", 2), ("(]", 2), ("(()", 1)]

SOLUTION = '''from functools import lru_cache

def min_insertions(s):
    pairs = {"(": ")", "[": "]", "{": "}"}
    if any(ch not in "()[]{}" for ch in s):
        raise ValueError("only bracket characters are allowed")

    @lru_cache(maxsize=None)
    def best(i, j):
        if i >= j:
            return 0
        result = 1 + best(i + 1, j)
        opener = s[i]
        if opener in pairs:
            for k in range(i + 1, j):
                if s[k] == pairs[opener]:
                    result = min(result, best(i + 1, k) + best(k + 1, j))
        return result

    return best(0, len(s))
'''

PAIRS = {"(": ")", "[": "]", "{": "}"}


def trusted(s):
    n = len(s)
    table = {}
    for length in range(0, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            if length == 0:
                table[(i, j)] = 0
                continue
            result = 1 + table[(i + 1, j)]
            if s[i] in PAIRS:
                for k in range(i + 1, j):
                    if s[k] == PAIRS[s[i]]:
                        result = min(result, table[(i + 1, k)] + table[(k + 1, j)])
            table[(i, j)] = result
    return table[(0, n)]


class BracketInsertionRepair:
    def __init__(self, max_length=12, hidden=9):
        self.max_length = max_length
        self.hidden = hidden
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _balanced(self, rng, n_pairs):
        if n_pairs == 0:
            return ""
        inner = rng.randint(0, n_pairs - 1)
        o = rng.choice("([{")
        return o + self._balanced(rng, inner) + PAIRS[o] + self._balanced(rng, n_pairs - 1 - inner)

    def _draw(self, rng):
        length = rng.randint(3, self.max_length)
        if rng.random() < 0.5:
            chars = list(self._balanced(rng, (length + 1) // 2))
            for _ in range(rng.randint(1, 3)):
                kind = rng.randint(0, 2)
                if kind == 0 and chars:
                    del chars[rng.randrange(len(chars))]
                elif kind == 1 and len(chars) > 1:
                    i = rng.randrange(len(chars) - 1)
                    chars[i], chars[i + 1] = chars[i + 1], chars[i]
                else:
                    chars.insert(rng.randint(0, len(chars)), rng.choice("()[]{}"))
            return "".join(chars[: self.max_length])
        return "".join(rng.choice("()[]{}") for _ in range(length))

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        for s, want in EXAMPLES:
            call = f"min_insertions({s!r})"
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want}")
            self.visible.append(self.tests[-1])
        seen = set(s for s, _ in EXAMPLES)
        tries = 0
        while len(self.tests) < len(EXAMPLES) + self.hidden and tries < 500:
            tries = tries + 1
            s = self._draw(rng)
            if s in seen:
                continue
            seen.add(s)
            call = f"min_insertions({s!r})"
            want = trusted(s)
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want}")
        bad = rng.choice(["(a)", "[ ]", "{<>}", "(1]"])
        self.tests.append(raises_test(f"min_insertions({bad!r})", "ValueError"))
        self.labels.append(f"min_insertions({bad!r}) raises ValueError")
        examples = "\n".join(f"  min_insertions({s!r}) == {w}" for s, w in EXAMPLES)
        obs = (
            f"{SPEC_TEXT}\n\nExamples:\n{examples}\n\nReply with the function in a ```python block. Hidden tests use "
            f"strings up to {self.max_length} characters. You have {ENV_SPEC['max_turns']} submissions."
        )
        return obs, {"hidden_tests": len(self.tests) - len(EXAMPLES)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "min_insertions" not in defined_names(code):
            error = "your code does not define min_insertions() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Submissions left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "A stack-based greedy count is wrong once types mix (it cannot see that '([)]' needs two). Use an interval "
            "DP over s[i:j]: either give s[i] an inserted partner (1 + cost of the rest) or, if s[i] opens, pair it "
            "with each later matching closer k and add the costs of the inside and of what follows."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
