# shape: HumanEval-style two-function spec (complete and validate a check digit: Luhn, ISBN-10, EAN-13, UPC-A or IMO per seed) with seed-drawn hidden tests
"""Implement is_valid/complete for one real-world check-digit scheme (Luhn, ISBN-10, EAN-13, UPC-A, IMO)."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "CheckDigitCodes",
    "domain": "code",
    "description": (
        "Each episode names one real check-digit scheme (Luhn card numbers, ISBN-10, EAN-13, UPC-A or IMO ship "
        "numbers) and a set of separator characters to ignore. The agent writes complete(payload) returning the "
        "check character and is_valid(code) returning a bool; seed-drawn hidden tests cover separators, bad "
        "characters and wrong lengths. Test feedback follows each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 6, "max": 18, "default": 10, "description": "hidden tests besides the shown examples"},
        "edge": {
            "min": 0, "max": 2, "default": 1,
            "description": "0: plain digit strings; 1: separators too; 2: also bad characters and wrong lengths",
        },
    },
    "grounding": (
        "Check-digit standards: the Luhn mod-10 algorithm (ISO/IEC 7812 card numbers), ISBN-10 mod-11 with X for "
        "ten, GS1 EAN-13 and UPC-A weights 1-3 / 3-1, IMO ship identification numbers (weights 7..2, sum mod 10)."
    ),
    "tags": ["code", "implement-function", "validation", "checksum"],
}

SCHEMES = {
    "luhn": {
        "title": "Luhn (payment card numbers)",
        "rule": (
            "Working from the rightmost digit of the full code (the check digit) leftwards, double every second "
            "digit (the digit just left of the check digit is doubled first); if a doubled value exceeds 9 "
            "subtract 9; the code is valid when the sum of all resulting digits is a multiple of 10. A full code "
            "has 2 to 19 digits, so a payload has 1 to 18 digits."
        ),
        "lengths": (2, 19),
    },
    "isbn10": {
        "title": "ISBN-10",
        "rule": (
            "A full code has 10 characters: nine digits then a check character. Weight the ten characters 10, 9, "
            "..., 1 from the left; the code is valid when the weighted sum is a multiple of 11. The check "
            "character stands for a value 0..10 and is written 'X' for 10 (is_valid accepts 'X' or 'x', only in "
            "the last position; complete returns uppercase 'X'). A payload has exactly 9 digits."
        ),
        "lengths": (10, 10),
    },
    "ean13": {
        "title": "EAN-13 (GS1)",
        "rule": (
            "A full code has 13 digits. Weight the digits 1, 3, 1, 3, ... from the left (the check digit, in "
            "position 13, gets weight 1); the code is valid when the weighted sum is a multiple of 10. A payload "
            "has exactly 12 digits."
        ),
        "lengths": (13, 13),
    },
    "upca": {
        "title": "UPC-A",
        "rule": (
            "A full code has 12 digits. Weight the digits 3, 1, 3, 1, ... from the left (the check digit, in "
            "position 12, gets weight 1); the code is valid when the weighted sum is a multiple of 10. A payload "
            "has exactly 11 digits."
        ),
        "lengths": (12, 12),
    },
    "imo": {
        "title": "IMO ship identification number",
        "rule": (
            "A full code has 7 digits. Multiply the first six digits by 7, 6, 5, 4, 3, 2 (from the left); the "
            "check digit is the last digit of that sum, and the code is valid when its seventh digit equals it. "
            "A payload has exactly 6 digits. (The usual 'IMO' prefix is not part of the code.)"
        ),
        "lengths": (7, 7),
    },
}

SEPARATOR_SETS = [["-"], [" "], ["-", " "], ["."], ["-", "."], ["/", " "]]
SEP_NAMES = {"-": "'-' (hyphen)", " ": "' ' (space)", ".": "'.' (dot)", "/": "'/' (slash)"}
BAD_CHARS = ["-", " ", ".", "/", "a", "O", "#", "_"]


def check_value(scheme, payload):
    digits = [int(c) for c in payload]
    if scheme == "luhn":
        total = 0
        for i, d in enumerate(reversed(digits)):
            if i % 2 == 0:
                d = d * 2
                if d > 9:
                    d = d - 9
            total = total + d
        return str((10 - total % 10) % 10)
    if scheme == "isbn10":
        total = sum((10 - i) * d for i, d in enumerate(digits))
        value = (11 - total % 11) % 11
        return "X" if value == 10 else str(value)
    if scheme == "ean13":
        total = sum((1 if i % 2 == 0 else 3) * d for i, d in enumerate(digits))
        return str((10 - total % 10) % 10)
    if scheme == "upca":
        total = sum((3 if i % 2 == 0 else 1) * d for i, d in enumerate(digits))
        return str((10 - total % 10) % 10)
    total = sum((7 - i) * d for i, d in enumerate(digits))
    return str(total % 10)


def trusted_valid(scheme, seps, code):
    chars = [c for c in code if c not in seps]
    low, high = SCHEMES[scheme]["lengths"]
    if len(chars) < low or len(chars) > high:
        return False
    body = chars[:-1]
    last = chars[-1]
    if not all(c in "0123456789" for c in body):
        return False
    if scheme == "isbn10" and last in "xX":
        last = "X"
    elif last not in "0123456789":
        return False
    return check_value(scheme, "".join(body)) == last


class CheckDigitCodes:
    def __init__(self, hidden=10, edge=1):
        self.hidden = hidden
        self.edge = edge
        self.scheme = "luhn"
        self.seps = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.done = False

    def _payload(self, rng):
        low, high = SCHEMES[self.scheme]["lengths"]
        n = rng.randint(low, high) - 1
        return "".join(rng.choice("0123456789") for _ in range(n))

    def _decorate(self, rng, code):
        if self.edge < 1 or len(code) < 3:
            return code
        out = code
        for _ in range(rng.randint(1, 2)):
            pos = rng.randint(1, len(out) - 1)
            out = out[:pos] + rng.choice(self.seps) + out[pos:]
        return out

    def reset(self, rng, options):
        self.scheme = rng.choice(sorted(SCHEMES))
        self.seps = list(rng.choice(SEPARATOR_SETS))
        self.turn = 0
        self.done = False
        cases = []
        seen = set()

        def add(kind, arg):
            key = (kind, arg)
            if key in seen:
                return
            seen.add(key)
            cases.append(key)

        # shown examples: one completion, one valid code, one invalid code
        p = self._payload(rng)
        add("complete", p)
        add("valid", self._decorate(rng, p + check_value(self.scheme, p)))
        q = self._payload(rng)
        wrong = str((int(check_value(self.scheme, q).replace("X", "10")) + rng.randint(1, 8)) % 10)
        add("valid", q + wrong)
        shown = len(cases)
        tries = 0
        while len(cases) < shown + self.hidden and tries < 500:
            tries = tries + 1
            kind = rng.randint(0, 5 if self.edge >= 2 else 3)
            p = self._payload(rng)
            good = p + check_value(self.scheme, p)
            if kind == 0:
                add("complete", p)
            elif kind == 1:
                add("valid", self._decorate(rng, good))
            elif kind == 2:
                i = rng.randrange(len(good) - 1)
                d = str((int(good[i]) + rng.randint(1, 9)) % 10)
                add("valid", self._decorate(rng, good[:i] + d + good[i + 1:]))
            elif kind == 3:
                if len(good) >= 3:
                    i = rng.randrange(len(good) - 2)
                    swapped = good[:i] + good[i + 1] + good[i] + good[i + 2:]
                    add("valid", self._decorate(rng, swapped))
            elif kind == 4:
                bad = [c for c in BAD_CHARS if c not in self.seps]
                i = rng.randint(1, len(good) - 1)
                add("valid", good[:i] + rng.choice(bad) + good[i:])
            else:
                if rng.random() < 0.5:
                    add("valid", good[:-2] + good[-1])
                else:
                    add("valid", good + rng.choice("0123456789"))
        if self.scheme == "isbn10":
            for _ in range(40):
                p = self._payload(rng)
                if check_value(self.scheme, p) == "X":
                    add("valid", p + ("x" if self.edge >= 1 else "X"))
                    add("complete", p)
                    break
        self.tests, self.labels = [], []
        for kind, arg in cases:
            if kind == "complete":
                call = f"complete({arg!r})"
                expected = check_value(self.scheme, arg)
            else:
                call = f"is_valid({arg!r})"
                expected = trusted_valid(self.scheme, self.seps, arg)
            self.tests.append(equality_test(call, expected))
            self.labels.append(f"{call} == {expected!r}")
        self.visible = self.tests[:shown]
        return self._task(), {"scheme": self.scheme, "tests": len(self.tests)}

    def _task(self):
        info = SCHEMES[self.scheme]
        seps = " and ".join(SEP_NAMES[s] for s in self.seps)
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Scheme: {info['title']}.\n{info['rule']}\n\n"
            "Write two functions:\n"
            "  complete(payload: str) -> str  : payload is a string of digits of the right length (no separators); "
            "return the single check character.\n"
            "  is_valid(code: str) -> bool     : True when code is a well-formed full code with a correct check "
            f"character. The separator characters {seps} may appear anywhere and are ignored; any other "
            "non-digit character (except the scheme's own check letter) or a wrong number of digits makes the "
            "code invalid (return False, never raise).\n\n"
            f"Examples:\n{examples}\n\nReply with both functions in one ```python block. Hidden tests check "
            f"other cases; you have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False}
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None:
            names = defined_names(code)
            missing = [n for n in ["complete", "is_valid"] if n not in names]
            if missing:
                error = "your code does not define " + " and ".join(m + "()" for m in missing) + " at the top level"
        if error is not None:
            if left <= 0:
                self.done = True
            obs = f"Format error: {error}. Send both functions in a ```python block. Submissions left: {left}."
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return obs, 0.0, self.done, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.done = True
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        if left <= 0:
            self.done = True
            return f"{feedback}\nNo submissions left.", 0.0, True, False, info
        return f"{feedback}\nFix the code and send both functions again. Submissions left: {left}.", 0.0, False, \
            False, info

    def privileged_hint(self):
        notes = {
            "luhn": "Index digits from the right of the payload: the payload's last digit is the first one doubled, "
                    "because the check digit will sit to its right.",
            "isbn10": "The check value is whatever makes the weighted sum divisible by 11, so it can be 10; "
                      "handle the letter before converting characters to int.",
            "ean13": "The check digit is the amount needed to reach the next multiple of 10, which is 0 (not 10) "
                     "when the weighted payload sum is already a multiple of 10.",
            "upca": "Here the first digit gets weight 3, unlike EAN-13; the check digit is (10 - sum % 10) % 10.",
            "imo": "There is no 'subtract from 10' step: the check digit is the weighted sum modulo 10 itself.",
        }[self.scheme]
        return notes + " In is_valid, strip only the listed separators first, then check length and characters " \
                       "before any arithmetic."

    def reference_action(self):
        info = SCHEMES[self.scheme]
        low, high = info["lengths"]
        if self.scheme == "luhn":
            body = (
                "    total = 0\n"
                "    for i, ch in enumerate(reversed(payload)):\n"
                "        d = int(ch)\n"
                "        if i % 2 == 0:\n"
                "            d = d * 2\n"
                "            if d > 9:\n"
                "                d = d - 9\n"
                "        total += d\n"
                "    return str((10 - total % 10) % 10)\n"
            )
        elif self.scheme == "isbn10":
            body = (
                "    total = sum((10 - i) * int(ch) for i, ch in enumerate(payload))\n"
                "    value = (11 - total % 11) % 11\n"
                "    return 'X' if value == 10 else str(value)\n"
            )
        elif self.scheme == "ean13":
            body = (
                "    total = sum((1 if i % 2 == 0 else 3) * int(ch) for i, ch in enumerate(payload))\n"
                "    return str((10 - total % 10) % 10)\n"
            )
        elif self.scheme == "upca":
            body = (
                "    total = sum((3 if i % 2 == 0 else 1) * int(ch) for i, ch in enumerate(payload))\n"
                "    return str((10 - total % 10) % 10)\n"
            )
        else:
            body = (
                "    total = sum((7 - i) * int(ch) for i, ch in enumerate(payload))\n"
                "    return str(total % 10)\n"
            )
        letter = "    if last in 'xX':\n        last = 'X'\n    elif" if self.scheme == "isbn10" else "    if"
        return (
            "```python\n"
            f"SEPARATORS = {''.join(self.seps)!r}\n\n\n"
            "def complete(payload):\n" + body + "\n\n"
            "def is_valid(code):\n"
            "    if not isinstance(code, str):\n"
            "        return False\n"
            "    chars = [c for c in code if c not in SEPARATORS]\n"
            f"    if len(chars) < {low} or len(chars) > {high}:\n"
            "        return False\n"
            "    body, last = chars[:-1], chars[-1]\n"
            "    if not all(c in '0123456789' for c in body):\n"
            "        return False\n"
            f"{letter} last not in '0123456789':\n"
            "        return False\n"
            "    return complete(''.join(body)) == last\n"
            "```"
        )
