# shape: write a strict parser for compact duration strings ('1d 2h30m') returning seconds and raising ValueError on seeded malformed inputs.
"""Write a strict duration-string parser: valid strings give seconds, malformed ones must raise ValueError."""


from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "StrictDurationParser",
    "domain": "code",
    "description": (
        "Implement parse_duration(text) for compact durations such as '1d 2h30m' or '45s': return the total "
        "seconds, and raise ValueError for anything outside the grammar (wrong unit order, repeats, signs, "
        "decimals, unknown units, blanks). Hidden valid and malformed inputs are drawn per seed."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden_valid": {"min": 2, "max": 10, "default": 5, "description": "hidden well-formed inputs"},
        "hidden_invalid": {"min": 1, "max": 8, "default": 4, "description": "hidden malformed inputs to reject"},
    },
    "grounding": (
        "Parsing a small regular grammar (like Go's time.ParseDuration or systemd time spans): a sequence of "
        "number-unit components with units in a fixed descending order, each at most once, converted with "
        "1d = 86400 s, 1h = 3600 s, 1m = 60 s; input outside the grammar raises an error instead of guessing."
    ),
    "tags": ["code", "parser", "validation", "exceptions", "hidden-tests"],
}

SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
UNIT_SETS = ["dhms", "hms", "wdh", "wdhm", "dhm", "whms", "dms", "wds"]
HINT = ("Match components one at a time with a pattern of digits immediately followed by one unit letter, skip "
        "spaces only between components, and keep the rank of the last unit used so each new unit must come "
        "strictly later in the listed order; a letter outside the listed units and anything left unmatched are "
        "errors.")
REFERENCE = """\
import re

def parse_duration(text):
    order = '@ORDER@'
    seconds = @TABLE@
    body = text.strip()
    if not body:
        raise ValueError('empty duration')
    total, last, pos = 0, -1, 0
    while pos < len(body):
        match = re.compile(r'([0-9]+)([a-z])').match(body, pos)
        if not match or match.group(2) not in seconds:
            raise ValueError(f'bad component at {pos}')
        rank = order.index(match.group(2))
        if rank <= last:
            raise ValueError('units repeated or out of order')
        last = rank
        total += int(match.group(1)) * seconds[match.group(2)]
        pos = match.end()
        while pos < len(body) and body[pos] == ' ':
            pos += 1
    return total
"""


def spec_text(units):
    table = ", ".join(f"1{u} = {SECONDS[u]}" for u in units if u != "s")
    names = ", ".join(units[:-1]) + f" or {units[-1]}"
    return (
        f"text is one or more components '<digits><unit>' with unit {names} (lower case) in exactly that order, "
        f"each unit at most once; components may be separated by spaces, and leading/trailing spaces are ignored, "
        f"but no space may sit between the digits and their unit. Return the total number of seconds ({table}"
        f"{', 1s = 1' if 's' in units else ''}). Raise ValueError for any other input: empty or blank text, signs, "
        f"decimals, any other or upper-case unit letter, a missing number, a repeated unit or units out of order."
    )


def make_valid(rng, units):
    chosen = sorted(rng.sample(units, rng.randint(1, len(units))), key=units.index)
    values = [rng.randint(0, 9) if u in "wd" else rng.randint(0, 99) for u in chosen]
    parts = [f"{v}{u}" for v, u in zip(values, chosen)]
    if rng.random() < 0.2:
        parts[0] = "0" + parts[0]
    text = "".join(p + rng.choice(["", " ", "  "]) for p in parts).strip()
    if rng.random() < 0.25:
        text = f" {text} "
    return text, sum(v * SECONDS[u] for v, u in zip(values, chosen))


def make_invalid(rng, kind, units):
    a, b = rng.randint(1, 59), rng.randint(1, 59)
    u, other = units, rng.choice([x for x in "wdhmsxy" if x not in units])
    return [
        f"{a}{u[1]}{b}{u[0]}", f"{a}{u[0]} {b}{u[0]}", f"{a}{other}", f"{a}{u[0]} {b}{other}", u[0],
        f"{a}{u[0]} {u[1]}", f"-{a}{u[1]}", f"+{a}{u[-1]}", f"{a} {u[1]}", f"{a}.5{u[0]}", f"{a}{u[0].upper()}", "",
        "   ", f"{a}{u[0]},{b}{u[1]}", f"{a}", f"{a}{u[-1]}{b}{u[-2]}", f"{a}{u[0]}{u[1]}",
    ][kind]


class StrictDurationParser:
    def __init__(self, hidden_valid=5, hidden_invalid=4):
        self.hidden_valid = hidden_valid
        self.hidden_invalid = hidden_invalid
        self.tests = []
        self.labels = []
        self.visible = []
        self.units = "dhms"
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        self.units = rng.choice(UNIT_SETS)
        seen = []
        while len(seen) < 2 + self.hidden_valid:
            text, total = make_valid(rng, self.units)
            if text not in seen:
                seen.append(text)
                self.tests.append(equality_test(f"parse_duration({text!r})", total))
                self.labels.append(f"parse_duration({text!r}) == {total}")
        missing = rng.choice([u for u in "wdhms" if u not in self.units])
        invalid = [f"{rng.randint(1, 9)}{self.units[0]} {rng.randint(1, 9)}{missing}"]
        invalid += [make_invalid(rng, kind, self.units) for kind in rng.sample(range(17), self.hidden_invalid)]
        for text in invalid:
            self.tests.append(raises_test(f"parse_duration({text!r})", "ValueError"))
            self.labels.append(f"parse_duration({text!r}) raises ValueError")
        shown = [0, 1, 2 + self.hidden_valid]
        self.visible = [self.tests[i] for i in shown]
        order = list(range(len(self.tests)))
        rest = [i for i in order if i not in shown]
        rng.shuffle(rest)
        self.tests = [self.tests[i] for i in shown + rest]
        self.labels = [self.labels[i] for i in shown + rest]
        return self.task_text(), {"function": "parse_duration", "tests": len(self.tests)}

    def task_text(self):
        examples = "\n".join("  " + label for label in self.labels[: len(self.visible)])
        return (
            f"Implement this Python function:\n\ndef parse_duration(text: str) -> int:\n    \"\"\"{spec_text(self.units)}\"\"\"\n\n"
            f"Examples:\n{examples}\n\n{len(self.tests) - len(self.visible)} hidden tests check more inputs, valid "
            f"and malformed. Reply with the complete function in a ```python block. You have "
            f"{ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        out_of_turns = left <= 0
        code, error = parse_code(action if isinstance(action, str) else "")
        if error is None and "parse_duration" not in defined_names(code):
            error = "your code does not define parse_duration() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self.task_text()}"
            return obs, 0.0, out_of_turns, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass. Well done.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the parser and send it again. Turns left: {left}.", 0.0, out_of_turns, False, info

    def privileged_hint(self):
        return HINT

    def reference_action(self):
        table = "{" + ", ".join(f"'{u}': {SECONDS[u]}" for u in self.units) + "}"
        return "```python\n" + REFERENCE.replace("@ORDER@", self.units).replace("@TABLE@", table) + "```"
