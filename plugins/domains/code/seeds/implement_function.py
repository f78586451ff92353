"""Implement a function from its specification; hidden tests check it and each turn reports what still fails."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "ImplementFunction",
    "domain": "code",
    "description": (
        "Implement a Python function from a specification and a few examples. Hidden tests (edge cases first) "
        "check it in the sandbox; each turn reports the failing shown tests and how many hidden tests fail."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 2, "max": 12, "default": 6, "description": "hidden tests, edge cases first"},
        "shown_tests": {"min": 1, "max": 4, "default": 2, "description": "worked examples shown in the task"},
    },
    "grounding": (
        "Test-driven programming exercises in the style of HumanEval/MBPP: a docstring specification, a few "
        "examples, and hidden unit tests that probe edge cases (empty input, ties, negative numbers)."
    ),
    "tags": ["code", "implement", "hidden-tests", "multi-turn"],
}


def solve_rle(args):
    s = args[0]
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j = j + 1
        out.append(s[i] + str(j - i))
        i = j
    return "".join(out)


def gen_rle(rng):
    alphabet = rng.choice(["ab", "abc", "xyz"])
    text = ""
    for _ in range(rng.randint(1, 5)):
        text = text + rng.choice(alphabet) * rng.randint(1, 4)
    return (text,)


def solve_second_largest(args):
    values = sorted(set(args[0]))
    if len(values) < 2:
        return None
    return values[-2]


def gen_second_largest(rng):
    return ([rng.randint(-20, 20) for _ in range(rng.randint(2, 8))],)


def solve_digital_root(args):
    n = args[0]
    while n >= 10:
        n = sum(int(d) for d in str(n))
    return n


def gen_digital_root(rng):
    return (rng.randint(0, 10 ** rng.randint(1, 12)),)


def solve_balanced(args):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for ch in args[0]:
        if ch in "([{":
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack[-1] != pairs[ch]:
                return False
            stack.pop()
    return not stack


def gen_balanced(rng):
    text = ""
    depth = []
    for _ in range(rng.randint(2, 10)):
        roll = rng.random()
        if roll < 0.4:
            opener = rng.choice("([{")
            depth.append(opener)
            text = text + opener
        elif roll < 0.8 and depth:
            text = text + {"(": ")", "[": "]", "{": "}"}[depth.pop()]
        else:
            text = text + rng.choice("ab )]}")
    if rng.random() < 0.5:
        while depth:
            text = text + {"(": ")", "[": "]", "{": "}"}[depth.pop()]
    return (text,)


def solve_rotate(args):
    nums, k = args
    if not nums:
        return []
    k = k % len(nums)
    return nums[len(nums) - k:] + nums[: len(nums) - k]


def gen_rotate(rng):
    return ([rng.randint(0, 9) for _ in range(rng.randint(2, 7))], rng.randint(1, 12))


def solve_islands(args):
    grid = args[0]
    seen = set()
    count = 0
    for r in range(len(grid)):
        for c in range(len(grid[r])):
            if grid[r][c] != "#" or (r, c) in seen:
                continue
            count = count + 1
            todo = [(r, c)]
            seen.add((r, c))
            while todo:
                y, x = todo.pop()
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < len(grid) and 0 <= nx < len(grid[ny]) and grid[ny][nx] == "#" and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        todo.append((ny, nx))
    return count


def gen_islands(rng):
    width = rng.randint(2, 6)
    return (["".join("#" if rng.random() < 0.45 else "." for _ in range(width)) for _ in range(rng.randint(2, 5))],)


def solve_to_base(args):
    n, base = args
    digits = "0123456789abcdef"
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = ""
    while n:
        out = digits[n % base] + out
        n = n // base
    return sign + out


def gen_to_base(rng):
    return (rng.randint(-5000, 5000), rng.choice([2, 3, 8, 12, 16]))


def solve_top_words(args):
    text, k = args
    counts = {}
    word = ""
    for ch in text.lower() + " ":
        if "a" <= ch <= "z":
            word = word + ch
        elif word:
            counts[word] = counts.get(word, 0) + 1
            word = ""
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return ranked[:k]


def gen_top_words(rng):
    vocab = ["red", "blue", "green", "Red", "BLUE", "tea", "sea", "it's"]
    words = [rng.choice(vocab) for _ in range(rng.randint(3, 9))]
    seps = [rng.choice([" ", ", ", "! ", "  "]) for _ in words]
    return ("".join(w + s for w, s in zip(words, seps)).strip(), rng.randint(1, 3))


TASKS = [
    {
        "name": "run_length_encode", "signature": "run_length_encode(s: str) -> str", "solve": solve_rle,
        "gen": gen_rle, "edges": [("",), ("aaaaaaaaaaaa",), ("abc",), ("a",)],
        "spec": "Replace every maximal run of one character by that character followed by the run length, "
                "e.g. 'aaab' -> 'a3b1'. The empty string encodes to ''.",
        "hint": "Track the current character and how long its run is; emit the last run after the loop ends, "
                "and remember a run can be ten or more characters long.",
        "reference": """\
def run_length_encode(s):
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(s[i] + str(j - i))
        i = j
    return ''.join(out)
""",
    },
    {
        "name": "second_largest", "signature": "second_largest(nums: list[int]) -> int | None",
        "solve": solve_second_largest, "gen": gen_second_largest,
        "edges": [([],), ([5],), ([3, 3, 3],), ([4, 4, 2],), ([-1, -2],)],
        "spec": "Return the second largest DISTINCT value in nums, or None when nums has fewer than two "
                "distinct values.",
        "hint": "Duplicates of the maximum do not count as the second largest; deduplicate first and handle "
                "lists with fewer than two distinct values.",
        "reference": """\
def second_largest(nums):
    values = sorted(set(nums))
    if len(values) < 2:
        return None
    return values[-2]
""",
    },
    {
        "name": "digital_root", "signature": "digital_root(n: int) -> int", "solve": solve_digital_root,
        "gen": gen_digital_root, "edges": [(0,), (9,), (10,), (99999999999,)],
        "spec": "For n >= 0, repeatedly replace n by the sum of its decimal digits until a single digit "
                "remains, and return it.",
        "hint": "Keep summing digits while the value still has two or more digits; a one-digit input is "
                "already the answer.",
        "reference": """\
def digital_root(n):
    while n >= 10:
        n = sum(int(d) for d in str(n))
    return n
""",
    },
    {
        "name": "is_balanced", "signature": "is_balanced(s: str) -> bool", "solve": solve_balanced,
        "gen": gen_balanced, "edges": [("",), ("(]",), ("([)]",), ("((",), ("))((",), ("a(b)c",)],
        "spec": "Return True when the brackets (), [] and {} in s are balanced and properly nested; every "
                "other character is ignored. The empty string is balanced.",
        "hint": "Use a stack of open brackets: a closer must match the most recent opener, a closer with an "
                "empty stack fails, and leftover openers fail at the end.",
        "reference": """\
def is_balanced(s):
    pairs = {')': '(', ']': '[', '}': '{'}
    stack = []
    for ch in s:
        if ch in '([{':
            stack.append(ch)
        elif ch in pairs:
            if not stack or stack[-1] != pairs[ch]:
                return False
            stack.pop()
    return not stack
""",
    },
    {
        "name": "rotate_right", "signature": "rotate_right(nums: list[int], k: int) -> list[int]",
        "solve": solve_rotate, "gen": gen_rotate,
        "edges": [([], 3), ([1], 5), ([1, 2, 3], 0), ([1, 2, 3], 3), ([1, 2, 3, 4], 6)],
        "spec": "Return a new list: nums rotated right by k >= 0 positions (the last element moves to the "
                "front k times). k may exceed len(nums); an empty list stays empty.",
        "hint": "Reduce k modulo the length first (guarding the empty list), then join two slices.",
        "reference": """\
def rotate_right(nums, k):
    if not nums:
        return []
    k = k % len(nums)
    return nums[len(nums) - k:] + nums[:len(nums) - k]
""",
    },
    {
        "name": "count_islands", "signature": "count_islands(grid: list[str]) -> int", "solve": solve_islands,
        "gen": gen_islands, "edges": [([],), (["...."],), (["#.#", ".#.", "#.#"],), (["###", "#.#", "###"],)],
        "spec": "grid is a list of equal-length rows of '#' (land) and '.' (water). Count the islands: groups "
                "of land cells connected up, down, left or right (diagonals do not connect).",
        "hint": "Flood-fill from every unvisited land cell with an explicit stack, marking cells as seen; "
                "only the four orthogonal neighbours connect.",
        "reference": """\
def count_islands(grid):
    seen = set()
    count = 0
    for r in range(len(grid)):
        for c in range(len(grid[r])):
            if grid[r][c] != '#' or (r, c) in seen:
                continue
            count += 1
            todo = [(r, c)]
            seen.add((r, c))
            while todo:
                y, x = todo.pop()
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < len(grid) and 0 <= nx < len(grid[ny]) and grid[ny][nx] == '#' and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        todo.append((ny, nx))
    return count
""",
    },
    {
        "name": "to_base", "signature": "to_base(n: int, base: int) -> str", "solve": solve_to_base,
        "gen": gen_to_base, "edges": [(0, 2), (-255, 16), (15, 16), (1, 2), (-7, 3)],
        "spec": "Write the integer n in the given base (2 to 16) using the digits 0-9 then lowercase a-f, "
                "with a leading '-' for negative n and no leading zeros; 0 is '0'.",
        "hint": "Work on abs(n) with repeated divmod, prepend each remainder's digit, and add the sign and "
                "the zero case separately.",
        "reference": """\
def to_base(n, base):
    digits = '0123456789abcdef'
    if n == 0:
        return '0'
    sign = '-' if n < 0 else ''
    n = abs(n)
    out = ''
    while n:
        n, r = divmod(n, base)
        out = digits[r] + out
    return sign + out
""",
    },
    {
        "name": "top_words", "signature": "top_words(text: str, k: int) -> list[str]", "solve": solve_top_words,
        "gen": gen_top_words, "edges": [("", 3), ("Apple apple BANANA", 1), ("b a c", 2), ("it's it's", 2)],
        "spec": "Words are maximal runs of ASCII letters, compared lowercased. Return the k most frequent "
                "words, most frequent first, ties in alphabetical order; fewer than k if there are fewer words.",
        "hint": "Anything that is not a letter separates words (an apostrophe too); sort by descending count, "
                "then alphabetically, and slice.",
        "reference": """\
def top_words(text, k):
    counts = {}
    word = ''
    for ch in text.lower() + ' ':
        if 'a' <= ch <= 'z':
            word += ch
        elif word:
            counts[word] = counts.get(word, 0) + 1
            word = ''
    return sorted(counts, key=lambda w: (-counts[w], w))[:k]
""",
    },
]


def call_text(name, args):
    return name + "(" + ", ".join(repr(a) for a in args) + ")"


class ImplementFunction:
    def __init__(self, hidden_tests=6, shown_tests=2):
        self.hidden_tests = hidden_tests
        self.shown_tests = shown_tests
        self.task = TASKS[0]
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.task = rng.choice(TASKS)
        self.turn = 0
        shown, hidden, seen = [], [], []
        tries = 0
        while len(shown) < self.shown_tests and tries < 200:
            tries = tries + 1
            args = self.task["gen"](rng)
            if repr(args) not in seen and args not in self.task["edges"]:
                seen.append(repr(args))
                shown.append(args)
        for args in self.task["edges"][: self.hidden_tests]:
            seen.append(repr(args))
            hidden.append(args)
        while len(hidden) < self.hidden_tests and tries < 400:
            tries = tries + 1
            args = self.task["gen"](rng)
            if repr(args) not in seen:
                seen.append(repr(args))
                hidden.append(args)
        self.tests, self.labels, self.visible = [], [], []
        for i, args in enumerate(shown + hidden):
            call = call_text(self.task["name"], args)
            expected = self.task["solve"](args)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < len(shown):
                self.visible.append(test)
        return self._task_text(), {"function": self.task["name"], "tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement this Python function:\n\ndef {self.task['signature']}:\n    \"\"\"{self.task['spec']}\"\"\"\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - len(self.visible)} hidden tests check more cases. Reply "
            f"with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and self.task["name"] not in defined_names(code):
            error = f"your code does not define {self.task['name']}() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass. Well done.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        return self.task["hint"]

    def reference_action(self):
        return "```python\n" + self.task["reference"] + "```"
