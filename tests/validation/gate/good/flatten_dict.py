# expect: accepted
"""Implement flatten(d): flatten nested dicts into dotted keys; wrong code is penalised to discourage guessing."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "FlattenDict",
    "domain": "code",
    "description": (
        "Implement flatten(d, sep='.') turning nested dicts into one level with joined keys. Hidden tests vary "
        "per episode; code that runs but fails tests is penalised."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "players": 1,
    "difficulty": {
        "depth": {"min": 1, "max": 5, "default": 3, "description": "deepest nesting in the random tests"},
        "hidden_tests": {"min": 2, "max": 10, "default": 5, "description": "hidden tests"},
    },
    "grounding": (
        "Flattening nested mappings (as in pandas.json_normalize or config loaders): a depth-first walk that "
        "joins the key path with a separator; empty nested dicts vanish."
    ),
    "tags": ["code", "recursion", "dicts", "hidden-tests"],
}

EDGES = [({},), ({"a": {}},), ({"a": {"b": {"c": 1}}},), ({"x": 1, "y": {"z": [1, 2]}},)]


def solve(d, sep="."):
    out = {}

    def walk(node, prefix):
        for key, value in node.items():
            path = prefix + sep + key if prefix else key
            if isinstance(value, dict):
                walk(value, path)
            else:
                out[path] = value
    walk(d, "")
    return out


def make_dict(rng, depth):
    node = {}
    for key in rng.sample(["a", "b", "c", "d", "e"], rng.randint(1, 3)):
        if depth > 1 and rng.random() < 0.5:
            node[key] = make_dict(rng, depth - 1)
        else:
            node[key] = rng.choice([0, 1, "s", None, True, [3]])
    return node


class FlattenDict:
    def __init__(self, depth=3, hidden_tests=5):
        self.depth = depth
        self.hidden_tests = hidden_tests
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        cases = [(make_dict(rng, self.depth),) for _ in range(2)] + EDGES[: self.hidden_tests]
        while len(cases) < 2 + self.hidden_tests:
            sep = rng.choice([".", "/", "__"])
            cases.append((make_dict(rng, self.depth), sep))
        self.tests, self.labels, self.visible = [], [], []
        for i, args in enumerate(cases):
            call = "flatten(" + ", ".join(repr(a) for a in args) + ")"
            expected = solve(*args)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < 2:
                self.visible.append(test)
        return self._task_text(), {"tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            "Implement this Python function:\n\ndef flatten(d: dict, sep: str = '.') -> dict:\n    \"\"\"Return a "
            "new one-level dict: every non-dict value found by walking d gets the key path joined with sep. "
            "Empty nested dicts produce no keys. Keys are strings; insertion order follows a depth-first walk."
            f"\"\"\"\n\nExamples:\n{examples}\n\n{len(self.tests) - len(self.visible)} hidden tests check more "
            f"cases. A submission that fails tests earns nothing. Reply with the complete function in a "
            f"```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "flatten" not in defined_names(code):
            error = "your code does not define flatten() at the top level"
        if error is not None:
            return f"Format error: {error}. Turns left: {left}.", 0.0, False, left <= 0, {
                "success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels, 2)
        return f"{feedback}\nTurns left: {left}.", 0.0, False, left <= 0, info

    def privileged_hint(self):
        return ("Recurse with the key path so far; only dict values recurse (lists are leaves), and join the path "
                "with sep only when it is non-empty.")

    def reference_action(self):
        return (
            "```python\ndef flatten(d, sep='.'):\n    out = {}\n    def walk(node, prefix):\n"
            "        for key, value in node.items():\n            path = prefix + sep + key if prefix else key\n"
            "            if isinstance(value, dict):\n                walk(value, path)\n            else:\n"
            "                out[path] = value\n    walk(d, '')\n    return out\n```"
        )
