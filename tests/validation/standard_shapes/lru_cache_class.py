# shape: a class to implement (an LRU cache) from a fixed specification; hidden call sequences vary by seed
"""Implement LRUCache(capacity) with get and put; the hidden tests replay call sequences drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "LruCacheSpec",
    "domain": "code",
    "description": "Implement a least-recently-used cache class; hidden call sequences check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"operations": {"min": 5, "max": 30, "default": 14, "description": "calls per hidden sequence"}},
    "grounding": "LRU eviction: when full, the cache drops the entry whose last get or put is oldest.",
    "tags": ["code", "class", "cache"],
}

SPEC = ('class LRUCache:\n'
        '    __init__(capacity: int)      # capacity >= 1\n'
        '    get(key: int) -> int         # the value, or -1 when absent; a hit makes the key most recently used\n'
        '    put(key: int, value: int)    # insert or update (most recently used); when over capacity, evict the\n'
        '                                 # least recently used key. Returns None.')

REFERENCE = """\
class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = {}

    def get(self, key):
        if key not in self.items:
            return -1
        value = self.items.pop(key)
        self.items[key] = value
        return value

    def put(self, key, value):
        self.items.pop(key, None)
        self.items[key] = value
        if len(self.items) > self.capacity:
            del self.items[next(iter(self.items))]
"""


def sequence(rng, operations):
    capacity = rng.randint(1, 4)
    order, ops, out = [], [], []
    values = {}
    for _ in range(operations):
        key = rng.randint(1, capacity + 2)
        if rng.random() < 0.5:
            value = rng.randint(0, 99)
            ops.append(f"put({key}, {value})")
            out.append(None)
            if key in order:
                order.remove(key)
            order.append(key)
            values[key] = value
            if len(order) > capacity:
                values.pop(order.pop(0))
        else:
            ops.append(f"get({key})")
            if key in order:
                order.remove(key)
                order.append(key)
                out.append(values[key])
            else:
                out.append(-1)
    return f"LRUCache({capacity})", ops, out


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


class LruCacheSpec:
    def __init__(self, operations=14):
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
        if error is None and "LRUCache" not in defined_names(code):
            error = "your code does not define LRUCache at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "An insertion-ordered dict is a recency list: pop and re-insert a key on every use."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
