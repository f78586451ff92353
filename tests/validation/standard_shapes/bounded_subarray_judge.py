# shape: judge-style stdin/stdout task as solve(data) -> output text (T cases, max sum of a non-empty block of at ...
"""Judge-style task: a solve(stdin_text) -> stdout_text program with multiple test cases per input."""

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "BoundedWindowMaxSumJudge",
    "domain": "code",
    "description": (
        "Online-judge style: write solve(data) that reads the whole input text (T cases of n, k and an array) and "
        "returns the output text: per case, the largest sum of a non-empty contiguous block of at most k elements. "
        "Hidden inputs drawn by seed are judged line by line, with feedback after each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "max_n": {"min": 6, "max": 200, "default": 60, "description": "largest array length in hidden inputs"},
        "hidden_files": {"min": 2, "max": 6, "default": 3, "description": "hidden input files (each with T cases)"},
    },
    "grounding": (
        "Competitive-programming input/output conventions (Codeforces/ICPC: a T line, then cases; answers one per "
        "line; trailing whitespace ignored) and the bounded maximum-subarray problem solved with prefix sums and a "
        "sliding-window minimum (monotonic deque)."
    ),
    "tags": ["code", "judge", "stdin-stdout", "prefix-sums", "multi-turn"],
}

SPEC_TEXT = (
    "Write solve(data: str) -> str. data is the full standard input:\n"
    "  line 1: T (number of cases)\n"
    "  each case: a line 'n k' (1 <= k <= n), then a line of n integers a_1..a_n (each between -1000 and 1000)\n"
    "Return the standard output: for each case, one line holding the largest sum of a NON-EMPTY contiguous block of "
    "at most k consecutive elements (so when every number is negative the answer is the largest single element). "
    "Output is judged line by line; trailing spaces and a final newline are ignored. Numbers may be separated by "
    "any whitespace, including extra spaces or newlines."
)

SAMPLE_IN = "3\n5 2\n1 -2 3 4 -1\n3 3\n-5 -2 -7\n4 1\n2 9 -1 9\n"
SAMPLE_OUT = "7\n-2\n9\n"

SOLUTION = '''from collections import deque

def solve(data):
    tokens = data.split()
    pos = 0
    t = int(tokens[pos]); pos += 1
    out = []
    for _ in range(t):
        n, k = int(tokens[pos]), int(tokens[pos + 1]); pos += 2
        a = [int(x) for x in tokens[pos:pos + n]]; pos += n
        prefix = [0]
        for x in a:
            prefix.append(prefix[-1] + x)
        best = None
        window = deque()
        for j in range(1, n + 1):
            i = j - 1
            while window and prefix[window[-1]] >= prefix[i]:
                window.pop()
            window.append(i)
            while window[0] < j - k:
                window.popleft()
            cand = prefix[j] - prefix[window[0]]
            if best is None or cand > best:
                best = cand
        out.append(str(best))
    return "\\n".join(out) + "\\n"
'''


def trusted(a, k):
    best = None
    for i in range(len(a)):
        total = 0
        for j in range(i, min(len(a), i + k)):
            total = total + a[j]
            if best is None or total > best:
                best = total
    return best


def judge_test(text, expected_lines):
    return (
        f"out = solve({text!r})\n"
        "assert type(out) is str, 'solve must return a str, got ' + repr(type(out))\n"
        "got = [line.rstrip() for line in out.rstrip().split('\\n')]\n"
        f"want = {expected_lines!r}\n"
        "bad = [i + 1 for i in range(max(len(got), len(want))) if i >= len(got) or i >= len(want) or got[i] != want[i]]\n"
        "assert not bad, 'wrong output on line(s) ' + repr(bad[:5]) + ' of ' + repr(len(want))"
    )


class BoundedWindowMaxSumJudge:
    def __init__(self, max_n=60, hidden_files=3):
        self.max_n = max_n
        self.hidden_files = hidden_files
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _file(self, rng):
        cases = rng.randint(3, 6)
        lines = [str(cases)]
        answers = []
        for c in range(cases):
            n = rng.randint(1, self.max_n) if c else rng.randint(1, 4)
            k = rng.randint(1, n)
            style = rng.randint(0, 3)
            if style == 0:
                a = [rng.randint(-1000, -1) for _ in range(n)]
            elif style == 1:
                a = [rng.randint(-30, 30) for _ in range(n)]
            else:
                a = [rng.randint(-1000, 1000) for _ in range(n)]
            sep = rng.choice([" ", " ", "  "])
            lines.append(f"{n} {k}")
            lines.append(sep.join(str(x) for x in a))
            answers.append(str(trusted(a, k)))
        text = "\n".join(lines) + ("\n" if rng.random() < 0.7 else "")
        return text, answers

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        self.tests.append(judge_test(SAMPLE_IN, SAMPLE_OUT.split()))
        self.labels.append("sample input from the statement")
        self.visible.append(self.tests[0])
        for f in range(self.hidden_files):
            text, answers = self._file(rng)
            self.tests.append(judge_test(text, answers))
            self.labels.append(f"hidden input file {f + 1}")
        obs = (
            f"{SPEC_TEXT}\n\nSample input:\n{SAMPLE_IN}\nSample output:\n{SAMPLE_OUT}\nReply with solve in a "
            f"```python block. Hidden inputs have n up to {self.max_n}; each file is judged in one run. You have "
            f"{ENV_SPEC['max_turns']} submissions."
        )
        return obs, {"hidden_files": self.hidden_files}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "solve" not in defined_names(code):
            error = "your code does not define solve(data) at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Submissions left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return "Accepted: every input file is judged correct.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        verdicts = []
        for label, item in zip(self.labels, result["results"]):
            if label.startswith("hidden") and not item["ok"]:
                verdicts.append(f"{label}: {(item['error'] or 'wrong answer')[:160]}")
        extra = ("\n" + "\n".join(verdicts[:2])) if verdicts and result["error"] is None else ""
        return f"{feedback}{extra}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "With prefix sums P, the best block ending at j is P[j] minus the smallest P[i] with j-k <= i < j; keep "
            "those candidates in a monotonic deque. Do not start the best at 0: the block must be non-empty, so an "
            "all-negative case answers its largest element. Read tokens with split(), not fixed lines."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
