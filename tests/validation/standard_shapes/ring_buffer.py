# shape: implement a class; hidden tests replay seeded method-call sequences against a trusted model of it.
"""Implement a fixed-capacity ring buffer class, checked by seeded sequences of method calls."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "RingBufferLog",
    "domain": "code",
    "description": (
        "Implement class RingBuffer(capacity) with push, pop, peek, size, is_full and items. When full, push "
        "overwrites the oldest entry and returns it. Tests replay random method-call sequences and compare every "
        "return value (and every promised IndexError) with a trusted model."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "sequences": {"min": 3, "max": 10, "default": 5, "description": "hidden call sequences"},
        "length": {"min": 6, "max": 30, "default": 14, "description": "method calls per sequence"},
    },
    "grounding": (
        "Circular buffers (ring buffers): a fixed array with a head index and a count; writes wrap modulo the "
        "capacity and, when full, overwrite the oldest element, as in logging and audio buffers."
    ),
    "tags": ["code", "class", "data-structure", "multi-turn"],
}

SPEC = (
    "Implement a Python class RingBuffer:\n"
    "  RingBuffer(capacity)  capacity is an int >= 1\n"
    "  push(x)    append x as the newest item. If the buffer was already full, first remove the oldest item and "
    "return it; otherwise return None.\n"
    "  pop()      remove and return the oldest item; raise IndexError if the buffer is empty.\n"
    "  peek()     return the oldest item without removing it; raise IndexError if the buffer is empty.\n"
    "  size()     the number of items held (an int).\n"
    "  is_full()  True when size() == capacity, else False.\n"
    "  items()    a list of the items held, oldest first (a new list; changing it must not change the buffer)."
)


def model_run(capacity, ops):
    """Replay ops on a trusted model; return the expected outcome of each: a value, or the string 'IndexError'."""
    held = []
    outcomes = []
    for op, arg in ops:
        if op == "push":
            out = None
            if len(held) == capacity:
                out = held.pop(0)
            held.append(arg)
            outcomes.append(out)
        elif op in ("pop", "peek"):
            if not held:
                outcomes.append("IndexError")
            else:
                outcomes.append(held.pop(0) if op == "pop" else held[0])
        elif op == "size":
            outcomes.append(len(held))
        elif op == "is_full":
            outcomes.append(len(held) == capacity)
        else:
            outcomes.append(list(held))
    return outcomes


def call_text(op, arg):
    return f"buf.{op}({arg!r})" if op == "push" else f"buf.{op}()"


def sequence_test(capacity, ops, outcomes):
    lines = ["try:", f"    buf = RingBuffer({capacity})"]
    for (op, arg), want in zip(ops, outcomes):
        call = call_text(op, arg)
        if want == "IndexError":
            lines.append("    try:")
            lines.append(f"        got = {call}")
            lines.append("    except IndexError:")
            lines.append("        pass")
            lines.append("    else:")
            lines.append(f"        raise AssertionError('{call} should raise IndexError, got ' + repr(got))")
        else:
            lines.append(f"    got = {call}")
            lines.append(f"    assert got == {want!r} and type(got) == type({want!r}), "
                         f"'{call} returned ' + repr(got) + ', expected ' + repr({want!r})")
    lines.append("    view = buf.items()")
    lines.append("    view.append('extra')")
    lines.append("    assert 'extra' not in buf.items(), 'items() must return a copy'")
    lines.append("except IndexError as exc:")
    lines.append("    raise AssertionError('unexpected IndexError: ' + repr(exc))")
    return "\n".join(lines)


def sequence_label(capacity, ops, outcomes):
    parts = [f"buf = RingBuffer({capacity})"]
    for (op, arg), want in zip(ops, outcomes):
        shown = "raises IndexError" if want == "IndexError" else f"-> {want!r}"
        parts.append(f"{call_text(op, arg)} {shown}")
    return "; ".join(parts)


class RingBufferLog:
    def __init__(self, sequences=5, length=14):
        self.sequences = sequences
        self.length = length
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def draw_ops(self, rng):
        ops = []
        weights = ["push"] * 5 + ["pop"] * 2 + ["peek", "size", "is_full", "items"]
        for _ in range(self.length):
            op = rng.choice(weights)
            ops.append((op, rng.randint(1, 99) if op == "push" else None))
        return ops

    def reset(self, rng, options):
        self.tests = []
        self.labels = []
        for index in range(1 + self.sequences):
            capacity = rng.randint(1, 4)
            ops = self.draw_ops(rng)
            if index == 0:
                ops = [("pop", None)] + ops[:-1]
            outcomes = model_run(capacity, ops)
            self.tests.append(sequence_test(capacity, ops, outcomes))
            self.labels.append(sequence_label(capacity, ops, outcomes))
        self.visible = self.tests[:1]
        self.turn = 0
        obs = (
            f"{SPEC}\n\nExample sequence (each call with its result):\n  {self.labels[0]}\n\n{self.sequences} "
            f"hidden sequences with other capacities and calls follow. Reply with the class in a ```python block. "
            f"You have {ENV_SPEC['max_turns']} turns."
        )
        return obs, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "RingBuffer" not in defined_names(code):
            error = "define class RingBuffer at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, False, left <= 0, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} call sequences behave as specified.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, ["the example sequence"] + self.labels[1:], 1)
        return f"{feedback}\nTurns left: {left}.", 0.0, False, left <= 0, info

    def privileged_hint(self):
        return (
            "Decide what push does when the buffer is full before anything else: the evicted oldest item is the "
            "return value. Empty pop and peek must raise IndexError, and items() should hand back a fresh list."
        )

    def reference_action(self):
        return (
            "```python\n"
            "from collections import deque\n\n"
            "class RingBuffer:\n"
            "    def __init__(self, capacity):\n"
            "        self.capacity = capacity\n"
            "        self.data = deque()\n\n"
            "    def push(self, x):\n"
            "        out = None\n"
            "        if len(self.data) == self.capacity:\n"
            "            out = self.data.popleft()\n"
            "        self.data.append(x)\n"
            "        return out\n\n"
            "    def pop(self):\n"
            "        if not self.data:\n"
            "            raise IndexError('pop from an empty RingBuffer')\n"
            "        return self.data.popleft()\n\n"
            "    def peek(self):\n"
            "        if not self.data:\n"
            "            raise IndexError('peek at an empty RingBuffer')\n"
            "        return self.data[0]\n\n"
            "    def size(self):\n"
            "        return len(self.data)\n\n"
            "    def is_full(self):\n"
            "        return len(self.data) == self.capacity\n\n"
            "    def items(self):\n"
            "        return list(self.data)\n"
            "```"
        )
