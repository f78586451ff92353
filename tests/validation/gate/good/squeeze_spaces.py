# expect: accepted
"""Implement squeeze_whitespace(text): collapse whitespace runs to single spaces and trim; hidden tests in the sandbox."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "SqueezeSpaces",
    "domain": "code",
    "description": (
        "Implement squeeze_whitespace(text): replace every run of whitespace (spaces, tabs, newlines, carriage "
        "returns) by one space and remove leading and trailing whitespace. Worked examples are shown; hidden "
        "tests with random text run in the sandbox."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_tests": {"min": 3, "max": 12, "default": 6, "description": "number of hidden tests"},
        "shown_tests": {"min": 1, "max": 4, "default": 2, "description": "worked examples shown"},
        "words": {"min": 2, "max": 12, "default": 5, "description": "most words in a random hidden test"},
    },
    "grounding": (
        "Whitespace normalisation as in HTML rendering and str.split() with no argument: runs of whitespace "
        "collapse to one separator and leading/trailing whitespace is dropped."
    ),
    "tags": ["code", "strings", "normalisation", "hidden-tests"],
}

EXAMPLES = [
    "  hello   world  ",
    "tab\tseparated\t\tvalues",
    "line one\nline two\r\n\r\nline three",
    "\n\n  padded \t text \n",
    "a  b   c    d",
    " single ",
    "trailing spaces   ",
    "mixed \t \n runs",
]
VOCAB = ["alpha", "beta", "gamma", "x", "data", "Hello", "42", "end.", "(note)", "a-b"]
SEPARATORS = [" ", "  ", "\t", "\n", " \t ", "\r\n", "   "]
EDGES = ["", "word", "two words"]

SPEC = (
    "Return text with every maximal run of whitespace characters (space, tab, newline, carriage return) "
    "replaced by a single space, and with no whitespace at the start or the end. A text with no non-whitespace "
    "characters becomes ''."
)


def solve(text):
    return " ".join(text.split())


class SqueezeSpaces:
    def __init__(self, hidden_tests=6, shown_tests=2, words=5):
        self.hidden_tests = hidden_tests
        self.shown_tests = shown_tests
        self.words = words
        self.tests = []
        self.labels = []
        self.visible = []

    def _gen(self, rng):
        words = [rng.choice(VOCAB) for _ in range(rng.randint(2, self.words))]
        seps = [rng.choice(SEPARATORS) for _ in range(len(words) - 1)]
        text = words[0]
        for word, sep in zip(words[1:], seps):
            text = text + sep + word
        return text

    def reset(self, rng, options):
        shown = rng.sample(EXAMPLES, self.shown_tests)
        hidden = list(EDGES[: max(1, self.hidden_tests // 3)])
        tries = 0
        while len(hidden) < self.hidden_tests and tries < 300:
            tries = tries + 1
            text = self._gen(rng)
            if text not in hidden and text not in shown:
                hidden.append(text)
        rng.shuffle(hidden)
        self.tests, self.labels, self.visible = [], [], []
        for i, text in enumerate(shown + hidden):
            call = f"squeeze_whitespace({text!r})"
            expected = solve(text)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < len(shown):
                self.visible.append(test)
        return self._task_text(), {"tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement this Python function:\n\ndef squeeze_whitespace(text: str) -> str:\n    \"\"\"{SPEC}\"\"\"\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - len(self.visible)} hidden tests (texts of up to {self.words} "
            f"words) check more cases. Reply "
            f"with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        code, error = parse_code(action)
        if error is None and "squeeze_whitespace" not in defined_names(code):
            error = "your code does not define squeeze_whitespace() at the top level"
        if error is not None:
            obs = f"Format error: {error}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 0.5)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests), "action_is_valid": True}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again.", 0.0, False, False, info

    def privileged_hint(self):
        return (
            "Scan the characters while remembering whether you are inside a whitespace run; emit a single space "
            "only when a run separates two non-whitespace characters, so runs at either end vanish. Carriage "
            "returns and tabs count as whitespace too."
        )

    def reference_action(self):
        return "```python\ndef squeeze_whitespace(text):\n    return ' '.join(text.split())\n```"
