"""String manipulation whose hidden tests target edge cases (empty input, odd whitespace, case, non-ASCII)."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "StringEdgeCases",
    "domain": "code",
    "description": (
        "Implement a string function (slugify, Caesar shift, truncate, reverse words, title case) whose examples "
        "are ordinary inputs while hidden tests probe the edge cases the specification states."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "edge_cases": {"min": 0, "max": 4, "default": 2, "description": "edge-case categories in the hidden tests"},
    },
    "grounding": (
        "Text-processing utilities found in web frameworks and style guides (URL slugs, title capitalisation "
        "rules with minor words, ellipsis truncation at word boundaries, the Caesar cipher)."
    ),
    "tags": ["code", "strings", "edge-cases", "multi-turn"],
}

ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MINOR = ["a", "an", "and", "of", "the", "in", "on"]
WORDS = ["hello", "world", "top", "tips", "plan", "river", "stone", "data", "quick", "fox"]


def solve_slugify(args):
    out = ""
    pending = False
    for ch in args[0]:
        low = ch.lower()
        if len(low) == 1 and low in ALNUM:
            if pending and out:
                out = out + "-"
            out = out + low
            pending = False
        else:
            pending = True
    return out


def gen_slugify(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 4))]
    words = [w.capitalize() if rng.random() < 0.5 else w for w in words]
    if rng.random() < 0.4:
        words.insert(1, str(rng.randint(1, 99)))
    return (" ".join(words),)


def solve_caesar(args):
    text, shift = args
    out = ""
    for ch in text:
        if ch in LOWER:
            out = out + LOWER[(LOWER.index(ch) + shift) % 26]
        elif ch in UPPER:
            out = out + UPPER[(UPPER.index(ch) + shift) % 26]
        else:
            out = out + ch
    return out


def gen_caesar(rng):
    return (" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))), rng.randint(1, 12))


def solve_truncate(args):
    text, width = args
    if len(text) <= width:
        return text
    cut = text[: width - 3]
    if text[width - 3] != " " and " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ") + "..."


def gen_truncate(rng):
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 6)))
    return (text, rng.randint(8, len(text) - 1))


def solve_reverse_words(args):
    return " ".join(args[0].split()[::-1])


def gen_reverse_words(rng):
    return (" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))),)


def solve_title(args):
    parts = args[0].split(" ")
    real = [i for i in range(len(parts)) if parts[i]]
    out = []
    for i in range(len(parts)):
        word = parts[i]
        if not word:
            out.append(word)
        elif word.lower() in MINOR and i != real[0] and i != real[-1]:
            out.append(word.lower())
        else:
            out.append(word[0].upper() + word[1:].lower())
    return " ".join(out)


def gen_title(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 4))]
    words.insert(1, rng.choice(["of", "and", "in", "the"]))
    return (" ".join(words),)


TASKS = [
    {
        "name": "slugify", "signature": "slugify(title: str) -> str", "solve": solve_slugify, "gen": gen_slugify,
        "spec": "Lowercase the title and keep ASCII letters and digits; every run of other characters (spaces, "
                "punctuation, non-ASCII letters) becomes a single '-', and the result never starts or ends with "
                "'-'. A title without letters or digits gives ''.",
        "edges": [
            ["empty or letterless titles", [("",), ("!!!",), ("   ",)]],
            ["leading and trailing punctuation", [("  --Hello--  ",), ("(draft) Plan!",)]],
            ["runs of several separators", [("a  --  b",), ("x,,,y",)]],
            ["non-ASCII letters", [("café au lait",), ("naïve plan",)]],
        ],
        "hint": "Emit a hyphen lazily, only when a kept character follows a separator and something was already "
                "written; a character counts as kept only if its lowercase form is an ASCII letter or digit.",
    },
    {
        "name": "caesar", "signature": "caesar(text: str, shift: int) -> str", "solve": solve_caesar,
        "gen": gen_caesar,
        "spec": "Shift every ASCII letter by shift places in the alphabet, wrapping around and keeping its case; "
                "shift may be negative or larger than 26. Every other character is unchanged.",
        "edges": [
            ["negative shifts", [("abc", -1), ("Hello", -30)]],
            ["shifts of a whole alphabet or more", [("xyz", 29), ("Hi", 52)]],
            ["mixed case with punctuation", [("Hello, World!", 5), ("ZzZ", 1)]],
            ["digits and non-ASCII letters", [("café 123", 1), ("über", 2)]],
        ],
        "hint": "Use the letter's index in the alphabet modulo the alphabet's length (Python's % is never "
                "negative), with separate "
                "alphabets for each case; test membership in ASCII alphabets, not with isalpha().",
    },
    {
        "name": "truncate", "signature": "truncate(text: str, width: int) -> str", "solve": solve_truncate,
        "gen": gen_truncate,
        "spec": "width >= 4. If len(text) <= width return text unchanged. Otherwise keep text[:width - 3]; if the "
                "character right after that is not a space and the kept part contains a space, drop everything "
                "from the kept part's last space on; finally strip trailing spaces and append '...'.",
        "edges": [
            ["texts that fit exactly or by one character", [("hello", 5), ("hello!", 5)]],
            ["texts without spaces", [("abcdefghij", 6), ("supercalifragilistic", 10)]],
            ["cuts that end right before a space", [("hello world", 8), ("data plan", 7)]],
            ["several spaces before the cut", [("ab   cd ef", 8), ("go   far away", 9)]],
        ],
        "hint": "Check the character just after the kept prefix before backing up to a space, and strip trailing "
                "spaces before adding the dots; a text that already fits is returned untouched.",
    },
    {
        "name": "reverse_words", "signature": "reverse_words(s: str) -> str", "solve": solve_reverse_words,
        "gen": gen_reverse_words,
        "spec": "Words are separated by any whitespace (spaces, tabs, newlines). Return the words in reverse order "
                "joined by single spaces, with no leading or trailing whitespace.",
        "edges": [
            ["empty or blank strings", [("",), ("   ",)]],
            ["extra spaces between and around words", [("  a   b  ",), (" x  y",)]],
            ["tabs and newlines", [("a\tb\nc",), ("one\n\ntwo",)]],
            ["a single word", [("word",), (" word ",)]],
        ],
        "hint": "Splitting on a literal space leaves empty strings behind; split on any whitespace instead.",
    },
    {
        "name": "title_case", "signature": "title_case(text: str) -> str", "solve": solve_title, "gen": gen_title,
        "spec": "Split text on single spaces (keep runs of spaces exactly). Each word becomes its first character "
                "uppercased plus the rest lowercased, except the minor words a, an, and, of, the, in, on, which "
                "are all lowercase, unless they are the first or last non-empty word.",
        "edges": [
            ["a minor word first or last", [("the end of the line",), ("what it is in",)]],
            ["input in capitals", [("HELLO THERE",), ("THE FOX AND THE HOUND",)]],
            ["runs of several spaces", [("a  tale",), (" river  of stone ",)]],
            ["apostrophes and hyphens inside words", [("rock-and-roll",), ("o'neil of the docks",)]],
        ],
        "hint": "Decide minor words with a case-insensitive comparison, and find the first and last non-empty "
                "words by position, since splitting on single spaces leaves empty strings.",
    },
]


def call_text(name, args):
    return name + "(" + ", ".join(repr(a) for a in args) + ")"


class StringEdgeCases:
    def __init__(self, edge_cases=2):
        self.edge_cases = edge_cases
        self.task = TASKS[0]
        self.categories = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.task = rng.choice(TASKS)
        self.turn = 0
        self.categories = rng.sample(self.task["edges"], self.edge_cases)
        cases, seen = [], []
        tries = 0
        while len(cases) < 5 and tries < 100:
            tries = tries + 1
            args = self.task["gen"](rng)
            if repr(args) not in seen:
                seen.append(repr(args))
                cases.append(args)
        for category in self.categories:
            cases = cases + category[1]
        self.tests, self.labels, self.visible = [], [], []
        for i, args in enumerate(cases):
            call = call_text(self.task["name"], args)
            expected = self.task["solve"](args)
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < 2:
                self.visible.append(test)
        return self._task_text(), {"function": self.task["name"], "tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[:2])
        return (
            f"Implement this Python function:\n\ndef {self.task['signature']}:\n    \"\"\"{self.task['spec']}\"\"\"\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - 2} hidden tests check the specification, edge cases "
            f"included. Reply with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} "
            "turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        name = self.task["name"]
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
            return f"All {len(self.tests)} tests pass, edge cases included.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the function and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        if not self.categories:
            return self.task["hint"]
        tested = ", ".join(c[0] for c in self.categories)
        return f"{self.task['hint']} The hidden tests cover: {tested}."

    def reference_action(self):
        return "```python\n" + REFERENCES[self.task["name"]] + "```"


REFERENCES = {
    "slugify": """\
def slugify(title):
    allowed = 'abcdefghijklmnopqrstuvwxyz0123456789'
    out = ''
    pending = False
    for ch in title:
        low = ch.lower()
        if len(low) == 1 and low in allowed:
            if pending and out:
                out += '-'
            out += low
            pending = False
        else:
            pending = True
    return out
""",
    "caesar": """\
def caesar(text, shift):
    lower = 'abcdefghijklmnopqrstuvwxyz'
    upper = lower.upper()
    out = []
    for ch in text:
        if ch in lower:
            out.append(lower[(lower.index(ch) + shift) % 26])
        elif ch in upper:
            out.append(upper[(upper.index(ch) + shift) % 26])
        else:
            out.append(ch)
    return ''.join(out)
""",
    "truncate": """\
def truncate(text, width):
    if len(text) <= width:
        return text
    cut = text[:width - 3]
    if text[width - 3] != ' ' and ' ' in cut:
        cut = cut[:cut.rindex(' ')]
    return cut.rstrip(' ') + '...'
""",
    "reverse_words": """\
def reverse_words(s):
    return ' '.join(s.split()[::-1])
""",
    "title_case": """\
def title_case(text):
    minor = {'a', 'an', 'and', 'of', 'the', 'in', 'on'}
    parts = text.split(' ')
    real = [i for i, w in enumerate(parts) if w]
    out = []
    for i, word in enumerate(parts):
        if not word:
            out.append(word)
        elif word.lower() in minor and i not in (real[0], real[-1]):
            out.append(word.lower())
        else:
            out.append(word[0].upper() + word[1:].lower())
    return ' '.join(out)
""",
}
