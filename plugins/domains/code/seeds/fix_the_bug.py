"""Fix a buggy function given one failing test; each turn reveals the next failing hidden test."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "FixTheBug",
    "domain": "code",
    "description": (
        "A short Python function has one to three injected bugs. The agent sees the code and one failing test, "
        "and must send the corrected function; each turn reveals the next failing hidden test."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "bugs": {"min": 1, "max": 3, "default": 2, "description": "number of injected bugs"},
        "random_tests": {
            "min": 2, "max": 10, "default": 4, "description": "hidden random tests besides the bug witnesses",
        },
    },
    "grounding": (
        "Debugging from a failing unit test, as in SWE-style repair benchmarks and QuixBugs: off-by-one loop "
        "bounds, wrong comparison operators, missing guards, integer vs true division, wrong indentation."
    ),
    "tags": ["code", "debugging", "repair", "multi-turn"],
}

RAISES_ZERO = "raises ZeroDivisionError"


def run_average(args, bugs):
    nums = args[0]
    total = 0
    count = 0
    for x in nums:
        keep = x >= 0 if 0 in bugs else x > 0
        if keep:
            total = total + x
            count = count + 1
    empty = (not nums) if 1 in bugs else count == 0
    if empty:
        return 0.0
    if count == 0:
        return RAISES_ZERO
    return total // count if 2 in bugs else total / count


def gen_average(rng):
    return ([rng.randint(-6, 9) for _ in range(rng.randint(1, 6))],)


def run_first_max(args, bugs):
    nums = args[0]
    if (nums is None) if 0 in bugs else (not nums):
        return -1
    best = 0
    stop = len(nums) - 1 if 1 in bugs else len(nums)
    for i in range(1, stop):
        better = nums[i] >= nums[best] if 2 in bugs else nums[i] > nums[best]
        if better:
            best = i
    return best


def gen_first_max(rng):
    return ([rng.randint(0, 6) for _ in range(rng.randint(1, 7))],)


def run_count_words(args, bugs):
    text = args[0]
    counts = {}
    words = text.split(" ") if 0 in bugs else text.split()
    for word in words:
        key = word if 1 in bugs else word.lower()
        counts[key] = 1 if 2 in bugs else counts.get(key, 0) + 1
    return counts


def gen_count_words(rng):
    words = [rng.choice(["go", "Go", "stop", "STOP", "wait"]) for _ in range(rng.randint(1, 6))]
    return (" ".join(words),)


def run_running_max(args, bugs):
    nums = args[0]
    result = []
    current = 0 if 0 in bugs else None
    for x in nums:
        changed = current is None or (x < current if 1 in bugs else x > current)
        if changed:
            current = x
        if changed or 2 not in bugs:
            result.append(current)
    return result


def gen_running_max(rng):
    return ([rng.randint(-5, 9) for _ in range(rng.randint(1, 7))],)


def run_binary(args, bugs):
    bits = args[0]
    if bits == "":
        return None
    value = 0
    for ch in (bits[1:] if 0 in bugs else bits):
        if ch not in "01":
            if 1 in bugs:
                continue
            return None
        value = value * (10 if 2 in bugs else 2) + int(ch)
    return value


def gen_binary(rng):
    return ("".join(rng.choice("0111") for _ in range(rng.randint(1, 8))),)


PROGRAMS = [
    {
        "name": "average_of_positives", "run": run_average, "gen": gen_average,
        "spec": "Return the mean of the strictly positive numbers in nums (a float), or 0.0 if there are none.",
        "lines": [
            "def average_of_positives(nums):",
            "    total = 0",
            "    count = 0",
            "    for x in nums:",
            ["        if x > 0:", "        if x >= 0:", "which numbers count as positive"],
            "            total = total + x",
            "            count = count + 1",
            ["    if count == 0:", "    if not nums:", "the guard for a list without positive numbers"],
            "        return 0.0",
            ["    return total / count", "    return total // count", "the kind of division used for the mean"],
        ],
        "witnesses": [[([0, 2, 4],), ([0, 0, 3],)], [([-3, -1],), ([-2],)], [([1, 2],), ([2, 3, 5, -1],)]],
    },
    {
        "name": "first_max_index", "run": run_first_max, "gen": gen_first_max,
        "spec": "Return the index of the first occurrence of the largest value in nums, or -1 if nums is empty.",
        "lines": [
            "def first_max_index(nums):",
            ["    if not nums:", "    if nums is None:", "the empty-list guard"],
            "        return -1",
            "    best = 0",
            ["    for i in range(1, len(nums)):", "    for i in range(1, len(nums) - 1):", "the loop bounds"],
            ["        if nums[i] > nums[best]:", "        if nums[i] >= nums[best]:",
             "how ties with the current best are treated"],
            "            best = i",
            "    return best",
        ],
        "witnesses": [[([],)], [([1, 2, 7],), ([0, 5],)], [([4, 1, 4],), ([2, 2],)]],
    },
    {
        "name": "count_words", "run": run_count_words, "gen": gen_count_words,
        "spec": "Count the words of text case-insensitively: return a dict mapping each lowercased word to its "
                "count. Words are separated by any run of whitespace.",
        "lines": [
            "def count_words(text):",
            "    counts = {}",
            ["    for word in text.split():", "    for word in text.split(' '):", "how the text is split into words"],
            ["        key = word.lower()", "        key = word", "case-insensitive counting"],
            ["        counts[key] = counts.get(key, 0) + 1", "        counts[key] = 1",
             "how a repeated word updates its count"],
            "    return counts",
        ],
        "witnesses": [[("a  b",), (" go",)], [("Go go",), ("A",)], [("go go go",), ("x y x",)]],
    },
    {
        "name": "running_max", "run": run_running_max, "gen": gen_running_max,
        "spec": "Return a list whose i-th item is the maximum of nums[0..i] (an empty list for an empty nums).",
        "lines": [
            "def running_max(nums):",
            "    result = []",
            ["    current = None", "    current = 0", "the starting value when every number is negative"],
            "    for x in nums:",
            ["        if current is None or x > current:", "        if current is None or x < current:",
             "the comparison that updates the maximum"],
            "            current = x",
            ["        result.append(current)", "            result.append(current)", "when an item is appended"],
            "    return result",
        ],
        "witnesses": [[([-5, -7],), ([-1],)], [([3, 1, 2],), ([5, 4],)], [([3, 1, 2],), ([2, 2],)]],
    },
    {
        "name": "binary_to_int", "run": run_binary, "gen": gen_binary,
        "spec": "Return the value of a string of binary digits, or None if it is empty or holds any character "
                "other than 0 and 1.",
        "lines": [
            "def binary_to_int(bits):",
            "    if bits == '':",
            "        return None",
            "    value = 0",
            ["    for ch in bits:", "    for ch in bits[1:]:", "which characters the loop visits"],
            "        if ch not in '01':",
            ["            return None", "            continue", "what happens on an invalid character"],
            ["        value = value * 2 + int(ch)", "        value = value * 10 + int(ch)", "the positional weight"],
            "    return value",
        ],
        "witnesses": [[("10",), ("110",)], [("102",), ("1a",)], [("11",), ("101",)]],
    },
]


def call_text(name, args):
    return name + "(" + ", ".join(repr(a) for a in args) + ")"


class FixTheBug:
    def __init__(self, bugs=2, random_tests=4):
        self.bugs = bugs
        self.random_tests = random_tests
        self.program = PROGRAMS[0]
        self.active = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.shown_failure = ""
        self.turn = 0

    def _source(self, buggy):
        out = []
        slot = 0
        for line in self.program["lines"]:
            if isinstance(line, str):
                out.append(line)
                continue
            out.append(line[1] if buggy and slot in self.active else line[0])
            slot = slot + 1
        return "\n".join(out) + "\n"

    def reset(self, rng, options):
        self.program = rng.choice(PROGRAMS)
        self.active = sorted(rng.sample([0, 1, 2], self.bugs))
        self.turn = 0
        run = self.program["run"]
        cases = []
        first_failing = None
        for slot in [0, 1, 2]:
            for args in self.program["witnesses"][slot]:
                cases.append(args)
        tries = 0
        while len(cases) < 6 + self.random_tests and tries < 200:
            tries = tries + 1
            args = self.program["gen"](rng)
            if args not in cases:
                cases.append(args)
        order = list(range(len(cases)))
        rng.shuffle(order)
        self.tests, self.labels, self.visible = [], [], []
        for index in order:
            args = cases[index]
            call = call_text(self.program["name"], args)
            expected = run(args, [])
            got = run(args, self.active)
            self.tests.append(equality_test(call, expected))
            self.labels.append(f"{call} == {expected!r}")
            if first_failing is None and got != expected:
                first_failing = (len(self.tests) - 1, got)
        index, got = first_failing
        self.visible = [self.tests[index]]
        self.shown_failure = f"{self.labels[index]}   (the buggy code gives {got!r})"
        return self._task_text(), {"function": self.program["name"], "bugs": self.bugs}

    def _task_text(self):
        plural = "bug" if self.bugs == 1 else "bugs"
        return (
            f"This function has {self.bugs} {plural}. Specification: {self.program['spec']}\n\n"
            f"```python\n{self._source(True)}```\n\nThis test fails:\n  {self.shown_failure}\n\n"
            f"Fix the function and reply with the whole corrected function in a ```python block. Hidden tests "
            f"check other cases. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        name = self.program["name"]
        code, error = parse_code(action)
        if error is None and name not in defined_names(code):
            error = f"your code does not define {name}() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass. The function is fixed.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        revealed = ""
        for i, item in enumerate(result["results"]):
            if result["error"] is None and not item["ok"] and self.tests[i] not in self.visible:
                self.visible.append(self.tests[i])
                why = (item["error"] or "assertion failed")[:300]
                revealed = f"\nNewly revealed failing test: {self.labels[i]}\n  error: {why}"
                break
        obs = f"{feedback}{revealed}\nSend the whole corrected function again. Turns left: {left}."
        return obs, 0.0, False, False, info

    def privileged_hint(self):
        notes = []
        slot = 0
        for line in self.program["lines"]:
            if isinstance(line, str):
                continue
            if slot in self.active:
                notes.append(line[2])
            slot = slot + 1
        return "Look closely at: " + "; ".join(notes) + "."

    def reference_action(self):
        return "```python\n" + self._source(False) + "```"
