# shape: a parser with a fixed specification (one CSV line with quoted fields); hidden lines vary by seed
"""Implement split_csv_line(line) following RFC 4180 quoting for one line; the hidden lines are drawn from the seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "CsvLineParser",
    "domain": "code",
    "description": "Implement splitting one CSV line into fields, honouring double quotes; hidden tests drawn per seed check it.",
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"fields": {"min": 2, "max": 12, "default": 5, "description": "fields per hidden line"}},
    "grounding": "RFC 4180: a field in double quotes may hold commas, and a doubled quote inside it stands for one quote.",
    "tags": ["code", "parser", "csv", "fixed-spec"],
}

SPEC = ('def split_csv_line(line: str) -> list[str]:\n'
        '    """Split one CSV line into its fields. Fields are separated by commas; a field wrapped in double quotes\n'
        '    may contain commas, and "" inside it is one literal quote; the wrapping quotes are not part of the\n'
        '    field. Spaces are kept. \'\' -> [\'\']; \'a,,b\' -> [\'a\', \'\', \'b\']; \'"x,""y""",z\' -> [\'x,"y"\', \'z\']."""')

REFERENCE = """\
def split_csv_line(line):
    fields, field, i, quoted = [], [], 0, False
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == '"' and i + 1 < len(line) and line[i + 1] == '"':
                field.append('"')
                i += 1
            elif ch == '"':
                quoted = False
            else:
                field.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == ',':
            fields.append(''.join(field))
            field = []
        else:
            field.append(ch)
        i += 1
    fields.append(''.join(field))
    return fields
"""

WORDS = ["apple", "New York", "3.5", "", "say \"hi\"", "a,b", "x", "  padded ", "42", "O'Neil", "end,"]


def quote(field):
    if any(ch in field for ch in ',"') or (field and field[0] == " "):
        return '"' + field.replace('"', '""') + '"'
    return field


def cases(rng, fields):
    found = []
    for _ in range(8):
        row = [rng.choice(WORDS) for _ in range(rng.randint(1, fields))]
        found.append((",".join(quote(f) for f in row), row))
    found += [("", [""]), ('"",""', ["", ""])]
    return [(equality_test(f"split_csv_line({line!r})", row), f"split_csv_line({line!r}) == {row!r}") for line, row in found]


class CsvLineParser:
    def __init__(self, fields=5):
        self.fields = fields
        self.tests = []
        self.labels = []
        self.turn = 0

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels = [], []
        for test, label in cases(rng, self.fields):
            self.tests.append(test)
            self.labels.append(label)
        examples = "\n".join("  " + label for label in self.labels[:2])
        text = (f"Implement this Python function:\n\n{SPEC}\n\nExamples:\n{examples}\n\n{len(self.tests) - 2} more "
                "tests are hidden. Reply with the complete function in a ```python block.")
        return text, {"tests": len(self.tests)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "split_csv_line" not in defined_names(code):
            error = "your code does not define split_csv_line at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Turns left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        if result["error"] is None and result["passed"] == len(self.tests):
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, {"success": True}
        feedback = describe_results(result, self.tests[:2], self.labels)
        return f"{feedback}\nTurns left: {left}.", 0.0, left <= 0, False, {"success": False}

    def privileged_hint(self):
        return "Walk the characters with one flag for 'inside quotes'; a doubled quote inside is a literal quote."

    def reference_action(self):
        return "```python\n" + REFERENCE + "```"
