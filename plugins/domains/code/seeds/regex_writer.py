"""Write a regular expression that accepts one family of strings and rejects its near misses."""

import re

from spade_domains.code.verify import defined_names, describe_results, parse_code, run_tests

ENV_SPEC = {
    "name": "RegexWriter",
    "domain": "code",
    "description": (
        "Write PATTERN, a Python regular expression that re.fullmatch accepts for every string of a described "
        "family and rejects for near misses. Shown and hidden strings are checked in the sandbox each turn."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "shown_examples": {"min": 1, "max": 6, "default": 3, "description": "strings shown per class (match / reject)"},
        "hidden_examples": {"min": 4, "max": 20, "default": 10, "description": "hidden strings, near misses first"},
    },
    "grounding": (
        "Python's re module (re.fullmatch semantics, character classes, quantifiers, alternation, "
        "backreferences) applied to common formats: ISO 8601 dates, 24-hour times, CSS hex colours, ZIP codes."
    ),
    "tags": ["code", "regex", "hidden-tests", "multi-turn"],
}

DIGITS = "0123456789"
HEX = "0123456789abcdefABCDEF"
LOWER = "abcdefghijklmnopqrstuvwxyz"


def two(n):
    return ("0" + str(n))[-2:]


def pos_date(rng):
    return f"{rng.randint(1000, 2999)}-{two(rng.randint(1, 12))}-{two(rng.randint(1, 31))}"


def pos_hex(rng):
    return "#" + "".join(rng.choice(HEX) for _ in range(rng.choice([3, 6])))


def pos_time(rng):
    return f"{two(rng.randint(0, 23))}:{two(rng.randint(0, 59))}"


def pos_decimal(rng):
    text = rng.choice(["", "", "+", "-"]) + str(rng.randint(0, 9999))
    if rng.random() < 0.5:
        text = text + "." + str(rng.randint(0, 999))
    return text


def pos_zip(rng):
    text = "".join(rng.choice(DIGITS) for _ in range(5))
    if rng.random() < 0.5:
        text = text + "-" + "".join(rng.choice(DIGITS) for _ in range(4))
    return text


def pos_even_ones(rng):
    bits = [rng.choice("01") for _ in range(rng.randint(1, 9))]
    if bits.count("1") % 2:
        bits.append("1")
    rng.shuffle(bits)
    return "".join(bits)


def pos_same_ends(rng):
    first = rng.choice(LOWER)
    middle = "".join(rng.choice(LOWER) for _ in range(rng.randint(0, 5)))
    return first + middle + first if rng.random() < 0.9 else first


def pos_identifier(rng):
    head = rng.choice(LOWER + "_ABCXYZ")
    return head + "".join(rng.choice(LOWER + DIGITS + "_Q") for _ in range(rng.randint(0, 6)))


FAMILIES = [
    {
        "key": "date", "pattern": r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])", "gen": pos_date,
        "alphabet": DIGITS + "-/",
        "describe": "dates written YYYY-MM-DD: a four-digit year, a two-digit month 01-12 and a two-digit day 01-31 "
                    "(do not check days per month)",
        "tricky": ["2021-13-01", "2021-00-10", "2021-01-32", "2021-01-00", "2021-1-05", "21-01-05", "2021/01/05",
                   "2021-01-05 ", "2021-12-31x", "2021-10-30"],
        "hint": "Treat month and day as small alternations of ranges (a first digit that limits the second); "
                "fullmatch already anchors both ends.",
    },
    {
        "key": "hex", "pattern": r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})", "gen": pos_hex, "alphabet": HEX + "#gG",
        "describe": "CSS hex colours: '#' followed by exactly 3 or exactly 6 hexadecimal digits (either case)",
        "tricky": ["#abcd", "#abcde", "#1234567", "abc", "#ggg", "#", "##abc", "#ABC"],
        "hint": "Lengths four, five and seven must fail: use an alternation of the two allowed lengths rather "
                "than a range quantifier.",
    },
    {
        "key": "time", "pattern": r"([01]\d|2[0-3]):[0-5]\d", "gen": pos_time, "alphabet": DIGITS + ":",
        "describe": "24-hour times HH:MM with hours 00-23 and minutes 00-59, always two digits each",
        "tricky": ["24:00", "12:60", "7:30", "12:5", "23:59", "00:00", "12-30", "29:10"],
        "hint": "Hours are two cases: a first digit of zero or one with any second digit, or a first digit of two "
                "with a limited second digit.",
    },
    {
        "key": "decimal", "pattern": r"[+-]?\d+(\.\d+)?", "gen": pos_decimal, "alphabet": DIGITS + "+-.e",
        "describe": "decimal numbers: an optional sign (+ or -), one or more digits, then optionally a point "
                    "followed by one or more digits (no exponent, no bare point)",
        "tricky": ["1.", ".5", "+-1", "1e5", "1.2.3", "--3", "-", "+0.0"],
        "hint": "Make the fractional part one optional group that contains both the point and at least one "
                "digit.",
    },
    {
        "key": "zip", "pattern": r"\d{5}(-\d{4})?", "gen": pos_zip, "alphabet": DIGITS + "- ",
        "describe": "US ZIP codes: five digits, optionally followed by '-' and four more digits",
        "tricky": ["1234", "123456", "12345-678", "12345 6789", "12345-", "1234a", "12345-67890"],
        "hint": "The extension is an optional group holding the hyphen and exactly four digits.",
    },
    {
        "key": "even_ones", "pattern": r"0*(10*10*)*", "gen": pos_even_ones, "alphabet": "012",
        "describe": "strings of 0s and 1s (the empty string included) that contain an even number of 1s "
                    "(zero 1s counts as even)",
        "tricky": ["1", "111", "0100", "0110", "", "10101", "2", "0000"],
        "hint": "Think of a two-state automaton: repeat a group that consumes exactly two ones with any zeros around "
                "them.",
    },
    {
        "key": "same_ends", "pattern": r"([a-z])([a-z]*\1)?", "gen": pos_same_ends, "alphabet": LOWER + "A1",
        "describe": "lowercase words (letters a-z only) whose first and last letters are the same; a single "
                    "letter counts",
        "tricky": ["ab", "abca", "Aa", "a1a", "", "aa", "abcba", "abcb"],
        "hint": "Capture the first letter and use a backreference for the last one, making the rest optional "
                "so a single letter still matches.",
    },
    {
        "key": "identifier", "pattern": r"[A-Za-z_][A-Za-z0-9_]*", "gen": pos_identifier,
        "alphabet": LOWER + DIGITS + "_- ",
        "describe": "ASCII identifiers: a letter or underscore, then any number of letters, digits or underscores",
        "tricky": ["1abc", "a-b", "a b", "", "_", "__init__", "x9", "9"],
        "hint": "The first character has a smaller class than the rest; digits are allowed only after it.",
    },
]


def mutate(text, rng, alphabet):
    if not text:
        return rng.choice(alphabet)
    i = rng.randrange(len(text))
    kind = rng.randint(0, 3)
    if kind == 0:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + rng.choice(alphabet) + text[i:]
    if kind == 2:
        return text[:i] + rng.choice(alphabet) + text[i + 1:]
    return text + text[i]


class RegexWriter:
    def __init__(self, shown_examples=3, hidden_examples=10):
        self.shown_examples = shown_examples
        self.hidden_examples = hidden_examples
        self.family = FAMILIES[0]
        self.tests = []
        self.labels = []
        self.visible = []
        self.shown_pos = []
        self.shown_neg = []
        self.turn = 0

    def _accepts(self, text):
        return re.fullmatch(self.family["pattern"], text) is not None

    def reset(self, rng, options):
        self.family = rng.choice(FAMILIES)
        self.turn = 0
        pos, neg = [], []
        tries = 0
        while (len(pos) < 40 or len(neg) < 40) and tries < 400:
            tries = tries + 1
            text = self.family["gen"](rng)
            if rng.random() < 0.5:
                text = mutate(text, rng, self.family["alphabet"])
            bucket = pos if self._accepts(text) else neg
            if text not in bucket and len(bucket) < 40:
                bucket.append(text)
        tricky = list(self.family["tricky"])
        rng.shuffle(tricky)
        self.shown_pos = pos[: self.shown_examples]
        self.shown_neg = [t for t in neg if t not in tricky][: self.shown_examples]
        used = self.shown_pos + self.shown_neg
        hidden = [t for t in tricky if t not in used]
        pool = [t for t in pos[self.shown_examples:] + neg if t not in used and t not in hidden]
        rng.shuffle(pool)
        hidden = (hidden + pool)[: self.hidden_examples]
        self.tests, self.labels, self.visible = [], [], []
        for i, text in enumerate(used + hidden):
            if self._accepts(text):
                test = f"assert re.fullmatch(PATTERN, {text!r}), {('should match ' + repr(text))!r}"
                label = f"PATTERN should match {text!r}"
            else:
                test = f"assert not re.fullmatch(PATTERN, {text!r}), {('should not match ' + repr(text))!r}"
                label = f"PATTERN should NOT match {text!r}"
            self.tests.append(test)
            self.labels.append(label)
            if i < len(used):
                self.visible.append(test)
        return self._task_text(), {"family": self.family["key"], "tests": len(self.tests)}

    def _task_text(self):
        must = "\n".join("  " + repr(t) for t in self.shown_pos)
        reject = "\n".join("  " + repr(t) for t in self.shown_neg)
        hidden = len(self.tests) - len(self.visible)
        return (
            f"Write a Python regular expression PATTERN (a string) such that re.fullmatch(PATTERN, s) succeeds "
            f"exactly for {self.family['describe']}.\n\nMust match:\n{must}\nMust NOT match:\n{reject}\n\n"
            f"{hidden} hidden strings are checked too. Reply with a ```python block that assigns PATTERN "
            f"(a raw string is easiest). You have {ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "PATTERN" not in defined_names(code):
            error = "your code does not assign PATTERN at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._task_text()}"
            return obs, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code + "\nimport re\n", self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} strings are classified correctly.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels, 6)
        return f"{feedback}\nRevise PATTERN and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        return self.family["hint"]

    def reference_action(self):
        return f"```python\nPATTERN = r\"{self.family['pattern']}\"\n```"
