# shape: implement a small class (a versioned key-value store with floor lookups) checked by seeded operation sequences.
"""Implement a small versioned key-value store class; hidden tests replay seeded operation sequences."""

from bisect import bisect_right

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "VersionedStoreClass",
    "domain": "code",
    "description": (
        "Implement class VersionedStore with put(key, value, version), get(key, version) returning the value "
        "of the greatest version <= version, latest(key) and history(key). Tests replay operation sequences "
        "drawn per seed and compare every return value; failures are reported between turns."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 2, "max": 10, "default": 5, "description": "hidden operation sequences"},
        "ops": {"min": 4, "max": 14, "default": 8, "description": "operations per sequence"},
    },
    "grounding": (
        "Time-based key-value stores (multi-version concurrency, LeetCode's TimeMap): each write is stamped "
        "with a version, a read at version v sees the newest write at or before v, and rewriting the same "
        "version replaces its value."
    ),
    "tags": ["code", "class-design", "binary-search", "hidden-tests"],
}

SPEC = """class VersionedStore:
    put(key: str, value: str, version: int) -> None
        Record value for key at version (versions may arrive in any order; writing an existing
        version of the key replaces its value).
    get(key: str, version: int) -> str | None
        The value written at the greatest version <= version, or None if there is none.
    latest(key: str) -> str | None
        The value at the key's greatest version, or None for an unknown key.
    history(key: str) -> list[tuple[int, str]]
        Every (version, value) pair of the key, sorted by version ([] for an unknown key)."""
HINT = ("Keep one sorted list of versions per key; a floor lookup is a binary search for the insertion point "
        "right of the asked version, minus one. Replace rather than duplicate an existing version.")
REFERENCE = """\
from bisect import bisect_right

class VersionedStore:
    def __init__(self):
        self.data = {}

    def put(self, key, value, version):
        self.data.setdefault(key, {})[version] = value

    def get(self, key, version):
        entries = self.data.get(key, {})
        versions = sorted(entries)
        i = bisect_right(versions, version)
        return entries[versions[i - 1]] if i else None

    def latest(self, key):
        entries = self.data.get(key)
        return entries[max(entries)] if entries else None

    def history(self, key):
        return sorted(self.data.get(key, {}).items())
"""
KEYS = ["cfg", "motd", "price", "owner", "theme", "quota"]
VALUES = ["red", "blue", "v1", "v2", "alpha", "beta", "on", "off", "42", "x"]


def simulate(ops):
    data = {}
    out = []
    for op in ops:
        if op[0] == "put":
            data.setdefault(op[1], {})[op[3]] = op[2]
            out.append(None)
        elif op[0] == "get":
            versions = sorted(data.get(op[1], {}))
            i = bisect_right(versions, op[2])
            out.append(data[op[1]][versions[i - 1]] if i else None)
        elif op[0] == "latest":
            entries = data.get(op[1])
            out.append(entries[max(entries)] if entries else None)
        else:
            out.append(sorted(data.get(op[1], {}).items()))
    return out


def generate(rng, count):
    keys = rng.sample(KEYS, rng.randint(1, 3))
    ops, used = [], []
    for _ in range(count):
        roll = rng.random()
        key = rng.choice(keys)
        if roll < 0.45 or not used:
            version = rng.choice(used) if used and rng.random() < 0.2 else rng.randint(1, 30)
            used.append(version)
            ops.append(("put", key, rng.choice(VALUES), version))
        elif roll < 0.75:
            unknown = rng.random() < 0.1
            ops.append(("get", "nope" if unknown else key, rng.choice(used) + rng.randint(-3, 3)))
        elif roll < 0.88:
            ops.append(("latest", "nope" if rng.random() < 0.1 else key))
        else:
            ops.append(("history", key))
    return ops


def call_of(op):
    return f"s.{op[0]}({', '.join(repr(a) for a in op[1:])})"


class VersionedStoreClass:
    def __init__(self, hidden_tests=5, ops=8):
        self.hidden_tests = hidden_tests
        self.ops = ops
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        sequences = [generate(rng, max(4, self.ops // 2))]
        key, low, mid, high = rng.choice(KEYS), rng.randint(1, 5), rng.randint(6, 10), rng.randint(11, 20)
        a, b, c, d = rng.sample(VALUES, 4)
        sequences.append([("put", key, a, mid), ("put", key, b, low), ("get", key, mid - 1), ("put", key, c, mid),
                          ("get", key, high), ("put", key, d, high), ("get", key, low - 1), ("latest", key),
                          ("history", key)])
        sequences += [generate(rng, self.ops) for _ in range(self.hidden_tests - 1)]
        self.tests, self.labels, self.visible = [], [], []
        for i, ops in enumerate(sequences):
            expected = [[list(p) for p in e] if isinstance(e, list) else e for e in simulate(ops)]
            call = f"(lambda s: [{', '.join(call_of(op) for op in ops)}])(VersionedStore())"
            history_fix = f"[[list(p) for p in r] if isinstance(r, list) else r for r in {call}]"
            self.tests.append(equality_test(history_fix, expected))
            self.labels.append(f"s = VersionedStore(); {'; '.join(call_of(op) for op in ops)} -> returns {expected!r}")
            if i == 0:
                self.visible.append(self.tests[-1])
        return self.task_text(), {"class": "VersionedStore", "tests": len(self.tests)}

    def task_text(self):
        return (
            f"Implement this Python class:\n\n{SPEC}\n\nExample (history pairs shown as lists):\n  {self.labels[0]}\n\n"
            f"{len(self.tests) - 1} hidden operation sequences (most of {self.ops} operations) check more cases. Reply with the complete class in "
            f"a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        out_of_turns = left <= 0
        code, error = parse_code(action if isinstance(action, str) else "")
        if error is None and "VersionedStore" not in defined_names(code):
            error = "your code does not define class VersionedStore at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self.task_text()}"
            return obs, 0.0, out_of_turns, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} operation sequences pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the class and send it again. Turns left: {left}.", 0.0, out_of_turns, False, info

    def privileged_hint(self):
        return HINT

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
