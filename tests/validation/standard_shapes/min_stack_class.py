# shape: a class to implement from a fixed specification; hidden operation sequences vary by seed
"""Implement a MinStack class (push, pop, top, get_min in constant time); the hidden tests replay operation
sequences drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "MinStackClass",
    "domain": "code",
    "description": "Implement a stack class that also reports its minimum; hidden operation sequences check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"operations": {"min": 4, "max": 20, "default": 10, "description": "operations per sequence"}},
    "grounding": "The classic min-stack design exercise: keep the running minimum alongside every pushed value.",
    "tags": ["code", "class", "data-structure"],
}

SPEC = ("class MinStack:\n"
        "    push(x: int) -> None      # put x on top\n"
        "    pop() -> int              # remove and return the top; raise IndexError when empty\n"
        "    top() -> int              # the top without removing it; raise IndexError when empty\n"
        "    get_min() -> int          # the smallest value on the stack; raise IndexError when empty")

REFERENCE = """\
class MinStack:
    def __init__(self):
        self.items = []

    def push(self, x):
        low = x if not self.items else min(x, self.items[-1][1])
        self.items.append((x, low))

    def pop(self):
        if not self.items:
            raise IndexError('empty')
        return self.items.pop()[0]

    def top(self):
        if not self.items:
            raise IndexError('empty')
        return self.items[-1][0]

    def get_min(self):
        if not self.items:
            raise IndexError('empty')
        return self.items[-1][1]
"""


def replay(ops):
    """What the calls return, in order (None for push; 'IndexError' for a call on an empty stack)."""
    stack, out = [], []
    for op, arg in ops:
        if op == "push":
            stack.append(arg)
            out.append(None)
        elif not stack:
            out.append("IndexError")
        elif op == "pop":
            out.append(stack.pop())
        elif op == "top":
            out.append(stack[-1])
        else:
            out.append(min(stack))
    return out


def program(ops):
    lines = ["def run():", "    s = MinStack()", "    out = []"]
    for op, arg in ops:
        call = f"s.push({arg})" if op == "push" else f"s.{op}()"
        lines += ["    try:", f"        out.append({call})", "    except IndexError:", "        out.append('IndexError')"]
    lines.append("    return out")
    return "\n".join(lines)


class MinStackClass:
    def __init__(self, operations=10):
        self.operations = operations
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for _ in range(5):
            ops = []
            for _ in range(self.operations):
                op = rng.choice(["push", "push", "pop", "top", "get_min"])
                ops.append((op, rng.randint(-9, 9) if op == "push" else None))
            expected = replay(ops)
            self.tests.append(program(ops) + "\n" + equality_test("run()", expected))
            self.labels.append(" ; ".join(f"push({a})" if o == "push" else f"{o}()" for o, a in ops)
                               + f" -> {expected!r}")
        text = (f"Implement this Python class:\n\n{SPEC}\n\nExample (calls, then what each returns):\n  "
                f"{self.labels[0]}\n\n4 more sequences are hidden. Reply with the class in a ```python block.")
        return text, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "MinStack" not in defined_names(code):
            error = "your code does not define the class MinStack at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return "All sequences pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:1], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Store, with every pushed value, the minimum of the stack up to and including it."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
