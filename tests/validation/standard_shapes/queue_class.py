# shape: a class to implement (a FIFO queue) from a fixed specification; hidden call sequences vary by seed
"""Implement a Queue class (enqueue, dequeue, peek, size); the hidden tests replay call sequences drawn from the
seed and compare what each call returns."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "QueueClassSpec",
    "domain": "code",
    "description": "Implement a first-in first-out queue class; hidden call sequences check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"operations": {"min": 4, "max": 24, "default": 10, "description": "calls per hidden sequence"}},
    "grounding": "A FIFO queue: items leave in the order they arrived.",
    "tags": ["code", "class", "data-structure"],
}

SPEC = ('class Queue:\n'
        '    enqueue(x) -> None     # add x at the back\n'
        '    dequeue() -> object    # remove and return the front item; raise IndexError when empty\n'
        '    peek() -> object       # the front item without removing it; raise IndexError when empty\n'
        '    size() -> int          # how many items are queued')

REFERENCE = """\
class Queue:
    def __init__(self):
        self.inbox = []
        self.outbox = []

    def enqueue(self, x):
        self.inbox.append(x)

    def _shift(self):
        if not self.outbox:
            while self.inbox:
                self.outbox.append(self.inbox.pop())
        if not self.outbox:
            raise IndexError('empty queue')

    def dequeue(self):
        self._shift()
        return self.outbox.pop()

    def peek(self):
        self._shift()
        return self.outbox[-1]

    def size(self):
        return len(self.inbox) + len(self.outbox)
"""


def sequence(rng, operations):
    items, ops, out = [], [], []
    for _ in range(operations):
        op = rng.choice(["enqueue", "enqueue", "dequeue", "peek", "size"])
        if op == "enqueue":
            x = rng.randint(0, 99)
            items.append(x)
            ops.append(f"enqueue({x})")
            out.append(None)
            continue
        ops.append(f"{op}()")
        if op == "size":
            out.append(len(items))
        elif not items:
            out.append("IndexError")
        else:
            out.append(items.pop(0) if op == "dequeue" else items[0])
    return "Queue()", ops, out


def program(ops, make):
    lines = ["def run():", f"    obj = {make}", "    out = []"]
    for call in ops:
        lines += ["    try:", f"        out.append(obj.{call})"]
        for error in ("IndexError", "KeyError", "ValueError"):
            lines += [f"    except {error}:", f"        out.append({error!r})"]
    lines.append("    return out")
    return "\n".join(lines)


def cases(rng, operations):
    found = []
    for _ in range(6):
        make, ops, expected = sequence(rng, operations)
        found.append((program(ops, make) + "\n" + equality_test("run()", expected),
                      f"{make}; " + " ; ".join(ops) + f" -> {expected!r}"))
    return found


class QueueClassSpec:
    def __init__(self, operations=10):
        self.operations = operations
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.operations):
            self.tests.append(test)
            self.labels.append(label)
        examples = "\n".join("  " + label for label in self.labels[:2])
        text = (f"Implement this Python class:\n\n{SPEC}\n\nExamples:\n{examples}\n\n{len(self.tests) - 2} more "
                "tests are hidden. Reply with the complete class in a ```python block.")
        return text, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "Queue" not in defined_names(code):
            error = "your code does not define Queue at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Two lists make it cheap: push onto one, pop from the other, refilling it only when it is empty."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
