# expect: accepted
"""Implement json_get(doc, path): follow a dotted/indexed path into parsed JSON; hidden tests in the sandbox."""

from spade_domains.code.verify import defined_names, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "JsonPath",
    "domain": "code",
    "description": (
        "Implement json_get(doc, path) for paths like 'a.b[2].c' over parsed JSON (dicts, lists, scalars): "
        "return the value found, or None when any step is missing. Hidden tests with random documents run in "
        "the sandbox; each turn lists what failed."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 10, "default": 6, "description": "number of hidden tests"},
        "depth": {"min": 1, "max": 4, "default": 2, "description": "nesting depth of the random documents"},
    },
    "grounding": (
        "Path queries over JSON documents, a subset of JSONPath / jq syntax: dotted member access and "
        "bracketed zero-based array indices, with missing members yielding no result."
    ),
    "tags": ["code", "json", "parsing", "hidden-tests"],
}

SHOWN = 2
KEYS = ["id", "name", "items", "meta", "tags", "price", "owner", "child"]

SPEC = (
    "path is '' or a sequence of steps: a key (letters, digits, '_') preceded by '.' (no '.' before the first "
    "key), or an index [n] with n a non-negative integer; e.g. 'a', 'a.b', 'items[0].name', '[1][0]'. Apply "
    "the steps in order: a key step needs a dict containing that key, an index step needs a list long enough. "
    "Return the value reached ('' returns doc itself), or None as soon as a step cannot be applied."
)


def parse_path(path):
    steps = []
    i = 0
    while i < len(path):
        if path[i] == "[":
            j = path.index("]", i)
            steps.append(int(path[i + 1:j]))
            i = j + 1
        else:
            if path[i] == ".":
                i = i + 1
            j = i
            while j < len(path) and path[j] not in ".[":
                j = j + 1
            steps.append(path[i:j])
            i = j
    return steps


def solve(doc, path):
    value = doc
    for step in parse_path(path):
        if isinstance(step, int):
            if not isinstance(value, list) or step >= len(value):
                return None
            value = value[step]
        else:
            if not isinstance(value, dict) or step not in value:
                return None
            value = value[step]
    return value


def path_text(steps):
    text = ""
    for step in steps:
        if isinstance(step, int):
            text = text + f"[{step}]"
        else:
            text = text + ("." if text else "") + step
    return text


class JsonPath:
    def __init__(self, hidden_tests=6, depth=2):
        self.hidden_tests = hidden_tests
        self.depth = depth
        self.tests = []
        self.labels = []
        self.visible = []

    def _value(self, rng, depth):
        if depth <= 0 or rng.random() < 0.25:
            return rng.choice([rng.randint(0, 99), rng.choice(["red", "ok", "x"]), True, False])
        if rng.random() < 0.5:
            return [self._value(rng, depth - 1) for _ in range(rng.randint(1, 2))]
        keys = rng.sample(KEYS, rng.randint(1, 2))
        return {k: self._value(rng, depth - 1) for k in keys}

    def _path(self, rng, doc):
        steps = []
        value = doc
        while rng.random() < 0.8:
            if isinstance(value, dict) and value:
                key = rng.choice(sorted(value)) if rng.random() < 0.85 else rng.choice(KEYS)
                steps.append(key)
                if key not in value:
                    break
                value = value[key]
            elif isinstance(value, list) and value:
                index = rng.randint(0, len(value))
                steps.append(index)
                if index >= len(value):
                    break
                value = value[index]
            else:
                if rng.random() < 0.3:
                    steps.append(rng.choice([rng.choice(KEYS), 0]))
                break
        return path_text(steps)

    def _case(self, rng):
        doc = {k: self._value(rng, self.depth) for k in rng.sample(KEYS, rng.randint(2, 3))}
        return (doc, self._path(rng, doc))

    def reset(self, rng, options):
        cases = []
        while len(cases) < SHOWN + self.hidden_tests:
            case = self._case(rng)
            if case not in cases:
                cases.append(case)
        self.tests, self.labels, self.visible = [], [], []
        for i, (doc, path) in enumerate(cases):
            call = f"json_get({doc!r}, {path!r})"
            expected = solve(doc, path)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < SHOWN:
                self.visible.append(test)
        return self._task_text(), {"tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[:SHOWN])
        return (
            "Implement this Python function:\n\ndef json_get(doc, path: str):\n"
            f"    \"\"\"{SPEC}\"\"\"\n\nExamples:\n{examples}\n\n{len(self.tests) - SHOWN} hidden tests check more "
            f"cases. Reply with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        code, error = parse_code(action)
        if error is None and "json_get" not in defined_names(code):
            error = "your code does not define json_get() at the top level"
        if error is not None:
            obs = f"Format error: {error}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 0.5)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests), "action_is_valid": True}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        # detailed feedback so the agent can see exactly which behaviour is wrong
        lines = [f"{result['passed']} of {len(self.tests)} tests pass."]
        if result["error"]:
            lines.append(f"Your code did not run: {str(result['error'])[:200]}")
        for label, outcome in zip(self.labels[:len(self.visible)], result["results"]):
            if not outcome["ok"] and sum(len(line) for line in lines) + len(label) < 7000:
                lines.append(f"FAILED: {label}")
        return "\n".join(lines) + "\nFix the function and send it again.", 0.0, False, False, info

    def privileged_hint(self):
        return (
            "First split the path into steps (keys and integer indices), then walk the document: before each step "
            "check the current value's type (dict for keys, list for indices) and that the key exists or the index "
            "is in range; return None at the first failure. Remember that '' means the whole document."
        )

    def reference_action(self):
        return (
            "```python\n"
            "def json_get(doc, path):\n"
            "    steps = []\n"
            "    i = 0\n"
            "    while i < len(path):\n"
            "        if path[i] == '[':\n"
            "            j = path.index(']', i)\n"
            "            steps.append(int(path[i + 1:j]))\n"
            "            i = j + 1\n"
            "        else:\n"
            "            if path[i] == '.':\n"
            "                i += 1\n"
            "            j = i\n"
            "            while j < len(path) and path[j] not in '.[':\n"
            "                j += 1\n"
            "            steps.append(path[i:j])\n"
            "            i = j\n"
            "    value = doc\n"
            "    for step in steps:\n"
            "        if isinstance(step, int):\n"
            "            if not isinstance(value, list) or step >= len(value):\n"
            "                return None\n"
            "            value = value[step]\n"
            "        else:\n"
            "            if not isinstance(value, dict) or step not in value:\n"
            "                return None\n"
            "            value = value[step]\n"
            "    return value\n"
            "```"
        )
