# shape: a parser task with a fixed specification (an arithmetic expression evaluator); hidden expressions vary
"""Implement evaluate(expr) for + - * / and parentheses with integer floor division; the expressions the hidden
tests use are drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "ExpressionEvaluatorSpec",
    "domain": "code",
    "description": "Write a recursive-descent evaluator for integer arithmetic expressions; hidden expressions "
                   "check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"depth": {"min": 1, "max": 4, "default": 3, "description": "nesting depth of the expressions"}},
    "grounding": "Operator precedence parsing: * and / bind tighter than + and -, parentheses group, left to right.",
    "tags": ["code", "parser", "fixed-spec"],
}

SPEC = ("def evaluate(expr: str) -> int:\n"
        "    \"\"\"Evaluate an expression of non-negative integers, + - * /, parentheses and spaces. * and / bind\n"
        "    tighter than + and -; operators of equal precedence apply left to right; / is floor division (//).\n"
        "    Do not use eval.\"\"\"")

REFERENCE = """\
def evaluate(expr):
    tokens = []
    i = 0
    while i < len(expr):
        ch = expr[i]
        if ch.isdigit():
            j = i
            while j < len(expr) and expr[j].isdigit():
                j += 1
            tokens.append(int(expr[i:j]))
            i = j
            continue
        if ch in '+-*/()':
            tokens.append(ch)
        i += 1
    pos = [0]

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def take():
        pos[0] += 1
        return tokens[pos[0] - 1]

    def atom():
        tok = take()
        if tok == '(':
            value = expression()
            take()
            return value
        return tok

    def term():
        value = atom()
        while peek() in ('*', '/'):
            if take() == '*':
                value = value * atom()
            else:
                value = value // atom()
        return value

    def expression():
        value = term()
        while peek() in ('+', '-'):
            if take() == '+':
                value = value + term()
            else:
                value = value - term()
        return value

    return expression()
"""


def build(rng, depth):
    """An expression text (its value is computed by the environment's own parser)."""
    if depth == 0 or rng.random() < 0.3:
        return str(rng.randint(1, 20))
    text = f"{build(rng, depth - 1)} {rng.choice('+-*/')} {build(rng, depth - 1)}"
    return f"({text})" if rng.random() < 0.6 else text


class ExpressionEvaluatorSpec:
    def __init__(self, depth=3):
        self.depth = depth
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        while len(self.tests) < 8:
            text = build(rng, self.depth)
            value = self._value(text)
            if value is None:
                continue
            call = f"evaluate({text!r})"
            self.tests.append(equality_test(call, value))
            self.labels.append(f"{call} == {value!r}")
        examples = "\n".join("  " + label for label in self.labels[:2])
        text = (f"Implement this Python function:\n\n{SPEC}\n\nExamples:\n{examples}\n\n6 more tests are hidden. "
                "Reply with the complete function in a ```python block.")
        return text, {"tests": len(self.tests)}

    def _value(self, text):
        """The value by Python's own precedence rules (// for /), or None when a division by zero occurs."""
        tokens = text.replace("(", " ( ").replace(")", " ) ").split()
        try:
            return self._parse(tokens, [0])
        except ZeroDivisionError:
            return None

    def _parse(self, tokens, pos):
        value = self._term(tokens, pos)
        while pos[0] < len(tokens) and tokens[pos[0]] in "+-":
            op = tokens[pos[0]]
            pos[0] = pos[0] + 1
            right = self._term(tokens, pos)
            value = value + right if op == "+" else value - right
        return value

    def _term(self, tokens, pos):
        value = self._atom(tokens, pos)
        while pos[0] < len(tokens) and tokens[pos[0]] in "*/":
            op = tokens[pos[0]]
            pos[0] = pos[0] + 1
            right = self._atom(tokens, pos)
            value = value * right if op == "*" else value // right
        return value

    def _atom(self, tokens, pos):
        tok = tokens[pos[0]]
        pos[0] = pos[0] + 1
        if tok == "(":
            value = self._parse(tokens, pos)
            pos[0] = pos[0] + 1
            return value
        return int(tok)

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "evaluate" not in defined_names(code):
            error = "your code does not define evaluate() at the top level"
        if error is None and "eval(" in code.replace("evaluate(", ""):
            error = "do not call eval"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return "All tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "One function per precedence level: expression calls term, term calls atom, atom handles '('."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
