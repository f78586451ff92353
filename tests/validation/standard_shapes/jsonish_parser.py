# shape: a parser with a fixed specification (a JSON-like notation with bare keys and single quotes); hidden documents vary by seed
"""Implement parse_value(text) for a JSON-like notation (bare identifier keys, single- or double-quoted strings,
integers, true/false/null, lists, objects); the hidden documents are drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "JsonishParser",
    "domain": "code",
    "description": "Implement a recursive parser for a relaxed JSON notation; hidden documents drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"depth": {"min": 1, "max": 4, "default": 3, "description": "nesting depth of the hidden documents"}},
    "grounding": "JSON5-style relaxations of JSON: unquoted identifier keys and single-quoted strings.",
    "tags": ["code", "parser", "json", "fixed-spec"],
}

SPEC = ('def parse_value(text: str):\n'
        '    """Parse one value: an integer (maybe negative), true, false, null, a string in \'single\' or "double"\n'
        '    quotes (no escapes), a list [v, ...] or an object {key: v, ...} whose keys are bare identifiers or quoted\n'
        '    strings. Whitespace may appear between tokens. Return Python values (int, bool, None, str, list, dict)."""')

REFERENCE = """\
QUOTES = chr(39) + chr(34)


def parse_value(text):
    pos = [0]

    def skip():
        while pos[0] < len(text) and text[pos[0]].isspace():
            pos[0] += 1

    def word():
        start = pos[0]
        while pos[0] < len(text) and (text[pos[0]].isalnum() or text[pos[0]] in '_-'):
            pos[0] += 1
        return text[start:pos[0]]

    def string():
        quote = text[pos[0]]
        end = text.index(quote, pos[0] + 1)
        out = text[pos[0] + 1:end]
        pos[0] = end + 1
        return out

    def value():
        skip()
        ch = text[pos[0]]
        if ch in QUOTES:
            return string()
        if ch in '[{':
            pos[0] += 1
            items = [] if ch == '[' else {}
            skip()
            while text[pos[0]] not in ']}':
                if ch == '[':
                    items.append(value())
                else:
                    skip()
                    key = string() if text[pos[0]] in QUOTES else word()
                    skip()
                    pos[0] += 1
                    items[key] = value()
                skip()
                if text[pos[0]] == ',':
                    pos[0] += 1
                    skip()
            pos[0] += 1
            return items
        token = word()
        if token in ('true', 'false', 'null'):
            return {'true': True, 'false': False, 'null': None}[token]
        return int(token)

    return value()
"""

KEYS = ["id", "name", "tags", "count", "ok", "meta", "x_y", "note"]


def build(rng, depth):
    """A Python value and its text in the relaxed notation."""
    kind = rng.choice(["int", "str", "const", "list", "dict"] if depth > 0 else ["int", "str", "const"])
    if kind == "int":
        n = rng.randint(-50, 500)
        return n, str(n)
    if kind == "str":
        s = rng.choice(["a b", "it's", 'say "x"', "", "k:v", "[1]"])
        quote = '"' if "'" in s else "'"
        return s, quote + s + quote
    if kind == "const":
        value = rng.choice([True, False, None])
        return value, {True: "true", False: "false", None: "null"}[value]
    if kind == "list":
        parts = [build(rng, depth - 1) for _ in range(rng.randint(0, 3))]
        return [p[0] for p in parts], "[" + ", ".join(p[1] for p in parts) + "]"
    keys = rng.sample(KEYS, rng.randint(0, 3))
    parts = [(k, build(rng, depth - 1)) for k in keys]
    shown = [(f'"{k}"' if rng.random() < 0.3 else k) + ": " + p[1] for k, p in parts]
    return {k: p[0] for k, p in parts}, "{" + ",".join(shown) + "}"


def cases(rng, depth):
    found = []
    while len(found) < 8:
        value, text = build(rng, depth)
        if isinstance(value, (list, dict)):
            found.append((value, text))
    found += [(-7, " -7 "), ({}, "{ }")]
    return [(equality_test(f"parse_value({t!r})", v), f"parse_value({t!r}) == {v!r}") for v, t in found]


class JsonishParser:
    def __init__(self, depth=3):
        self.depth = depth
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.depth):
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
        if error is None and "parse_value" not in defined_names(code):
            error = "your code does not define parse_value at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "One function per value kind, and a shared position index: a value is a string, a bracketed list or object, or a bare word."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
