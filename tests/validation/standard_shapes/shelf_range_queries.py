# shape: judge-style stdin/stdout program (range queries and updates; the seed draws the operations and the indexing), output compared token by token
"""Competitive-programming style: solve(data) reads a whole stdin text of shelf updates/queries and returns stdout."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "ShelfRangeQueries",
    "domain": "code",
    "description": (
        "A judge-style problem: a warehouse aisle of N shelves holds stock counts; the input lists updates and "
        "range queries. The agent writes solve(data: str) -> str that reads the whole standard-input text and "
        "returns the standard-output text (one answer per query line). Each seed draws the operation set and the "
        "indexing convention; hidden judge inputs are drawn per seed and the output is compared token by token."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "ops": {"min": 2, "max": 5, "default": 3, "description": "how many operation kinds the input uses"},
        "hidden": {"min": 3, "max": 10, "default": 5, "description": "hidden judge inputs"},
    },
    "grounding": (
        "Online-judge input/output conventions (Codeforces, ICPC): a header line with sizes, an array line, then "
        "one operation per line; 1-based inclusive versus 0-based half-open ranges; point assignment, range "
        "increment and range sum/min/max/count queries as in warehouse stock tracking."
    ),
    "tags": ["code", "stdin-stdout", "simulation", "range-queries"],
}

OPS = {
    "SUM": ("query", "SUM l r: print the total stock on shelves l..r"),
    "MAX": ("query", "MAX l r: print the largest stock on shelves l..r"),
    "MIN": ("query", "MIN l r: print the smallest stock on shelves l..r"),
    "COUNT": ("query", "COUNT l r v: print how many shelves in l..r hold exactly v items"),
    "SET": ("update", "SET i v: shelf i now holds v items (prints nothing)"),
    "ADD": ("update", "ADD l r d: every shelf in l..r gains d items, d may be negative (prints nothing)"),
}
CONVENTIONS = {
    "one": "Shelves are numbered 1..N and a range l r means shelves l, l+1, ..., r (both ends included, l <= r).",
    "zero": "Shelves are numbered 0..N-1 and a range l r means shelves l, l+1, ..., r-1 (half-open, l < r).",
}


def judge(conv, data):
    lines = data.strip().split("\n")
    n, q = [int(x) for x in lines[0].split()]
    shelf = [int(x) for x in lines[1].split()]
    out = []
    for line in lines[2:2 + q]:
        parts = line.split()
        op = parts[0]
        nums = [int(x) for x in parts[1:]]
        if op == "SET":
            i = nums[0] - 1 if conv == "one" else nums[0]
            shelf[i] = nums[1]
            continue
        lo = nums[0] - 1 if conv == "one" else nums[0]
        hi = nums[1] if conv == "one" else nums[1]
        part = shelf[lo:hi]
        if op == "ADD":
            for i in range(lo, hi):
                shelf[i] = shelf[i] + nums[2]
        elif op == "SUM":
            out.append(str(sum(part)))
        elif op == "MAX":
            out.append(str(max(part)))
        elif op == "MIN":
            out.append(str(min(part)))
        else:
            out.append(str(part.count(nums[2])))
    return out


class ShelfRangeQueries:
    def __init__(self, ops=3, hidden=5):
        self.n_ops = ops
        self.hidden = hidden
        self.ops = []
        self.conv = "one"
        self.inputs = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.done = False

    def _range(self, rng, n):
        lo = rng.randint(0, n - 1)
        hi = rng.randint(lo + 1, n)
        if self.conv == "one":
            return [lo + 1, hi]
        return [lo, hi]

    def _input(self, rng, n, q, cover=False):
        plan = list(self.ops) if cover else []
        rng.shuffle(plan)
        shelf = [rng.randint(0, 9) for _ in range(n)]
        queries = [o for o in self.ops if OPS[o][0] == "query"]
        lines = [f"{n} {q}", " ".join(str(x) for x in shelf)]
        for k in range(q):
            op = plan[k] if k < len(plan) else rng.choice(self.ops)
            if k == q - 1 and OPS[op][0] != "query":
                op = rng.choice(queries)
            if op == "SET":
                i = rng.randint(0, n - 1) + (1 if self.conv == "one" else 0)
                lines.append(f"SET {i} {rng.randint(0, 12)}")
            elif op == "ADD":
                lo, hi = self._range(rng, n)
                lines.append(f"ADD {lo} {hi} {rng.choice([-3, -2, -1, 1, 2, 4, 5])}")
            elif op == "COUNT":
                lo, hi = self._range(rng, n)
                lines.append(f"COUNT {lo} {hi} {rng.randint(0, 9)}")
            else:
                lo, hi = self._range(rng, n)
                lines.append(f"{op} {lo} {hi}")
        return "\n".join(lines) + "\n"

    def reset(self, rng, options):
        queries = ["SUM", "MAX", "MIN", "COUNT"]
        updates = ["SET", "ADD"]
        chosen = [rng.choice(queries), rng.choice(updates)]
        rest = [o for o in queries + updates if o not in chosen]
        rng.shuffle(rest)
        self.ops = sorted(chosen + rest[: self.n_ops - 2], key=lambda o: list(OPS).index(o))
        self.conv = rng.choice(["one", "zero"])
        self.turn = 0
        self.done = False
        self.inputs = [self._input(rng, rng.randint(4, 6), rng.randint(6, 7), True)]
        edge_n = 1 if rng.random() < 0.5 else 2
        self.inputs.append(self._input(rng, edge_n, 3))
        for _ in range(self.hidden - 1):
            self.inputs.append(self._input(rng, rng.randint(5, 12), rng.randint(6, 14)))
        self.tests, self.labels = [], []
        for data in self.inputs:
            expected = judge(self.conv, data)
            self.tests.append(equality_test(f"solve({data!r}).split()", expected))
            self.labels.append(f"input {data!r} -> output {' '.join(expected)!r}")
        self.visible = [self.tests[0]]
        return self._task(), {"ops": self.ops, "convention": self.conv}

    def _task(self):
        rules = "\n".join("  " + OPS[o][1] for o in self.ops)
        sample_in = self.inputs[0]
        sample_out = "\n".join(judge(self.conv, sample_in))
        return (
            "Problem: an aisle of N shelves holds stock counts. The input is:\n"
            "  line 1: N Q\n  line 2: N integers, the starting stock of each shelf\n"
            "  then Q lines, one operation each:\n" + rules + "\n"
            f"{CONVENTIONS[self.conv]}\n"
            "Output one line per query operation, in input order. Updates print nothing.\n\n"
            f"Sample input:\n{sample_in}\nSample output:\n{sample_out}\n\n"
            "Write solve(data: str) -> str that takes the whole input text and returns the whole output text "
            "(the judge compares whitespace-separated tokens). Reply in a ```python block; hidden judge inputs "
            f"follow the same format. You have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False}
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "solve" not in defined_names(code):
            error = "your code does not define solve(data) at the top level"
        if error is not None:
            if left <= 0:
                self.done = True
            obs = f"Format error: {error}. Send solve(data) in a ```python block. Submissions left: {left}."
            return obs, 0.0, self.done, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.done = True
            info["success"] = True
            return f"Accepted: all {len(self.tests)} judge inputs pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        if left <= 0:
            self.done = True
            return f"Wrong answer.\n{feedback}\nNo submissions left.", 0.0, True, False, info
        return f"Wrong answer.\n{feedback}\nSubmissions left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        conv = (
            "convert a 1-based inclusive range l r to the Python slice [l-1:r]"
            if self.conv == "one" else "a 0-based half-open range l r is exactly the Python slice [l:r]"
        )
        extra = ""
        if "ADD" in self.ops:
            extra = " Range increments change the stock that later queries see, so apply them to the list itself."
        return (
            f"Read the header, keep the shelves in a list, and {conv}; process the Q operation lines in order and "
            f"collect an output line only for query operations.{extra} Inputs may have a single shelf."
        )

    def reference_action(self):
        shift = "1" if self.conv == "one" else "0"
        return (
            "```python\n"
            "def solve(data):\n"
            "    lines = data.strip().split('\\n')\n"
            "    n, q = map(int, lines[0].split())\n"
            "    shelf = list(map(int, lines[1].split()))\n"
            "    out = []\n"
            "    for line in lines[2:2 + q]:\n"
            "        parts = line.split()\n"
            "        op, nums = parts[0], list(map(int, parts[1:]))\n"
            "        if op == 'SET':\n"
            f"            shelf[nums[0] - {shift}] = nums[1]\n"
            "            continue\n"
            f"        lo, hi = nums[0] - {shift}, nums[1]\n"
            "        if op == 'ADD':\n"
            "            for i in range(lo, hi):\n"
            "                shelf[i] += nums[2]\n"
            "        elif op == 'SUM':\n"
            "            out.append(str(sum(shelf[lo:hi])))\n"
            "        elif op == 'MAX':\n"
            "            out.append(str(max(shelf[lo:hi])))\n"
            "        elif op == 'MIN':\n"
            "            out.append(str(min(shelf[lo:hi])))\n"
            "        elif op == 'COUNT':\n"
            "            out.append(str(shelf[lo:hi].count(nums[2])))\n"
            "    return '\\n'.join(out)\n"
            "```"
        )
