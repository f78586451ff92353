"""Parse a small text format (INI config, URL query string, duration, CSV line) whose hidden tests use more features."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "ParseFormat",
    "domain": "code",
    "description": (
        "Write a parser for a small text format from its specification. Examples use only the basic syntax; "
        "hidden tests exercise further features of the format (comments, escapes, quoting, empty parts)."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "features": {"min": 0, "max": 4, "default": 2, "description": "format features exercised by hidden tests"},
    },
    "grounding": (
        "Real formats, simplified: INI files (Python configparser), URL query strings (application/"
        "x-www-form-urlencoded: '+' and %XX escapes), human duration strings ('1h30m'), and RFC 4180 CSV "
        "quoting with doubled quotes."
    ),
    "tags": ["code", "parsing", "formats", "multi-turn"],
}


def gen_config(rng, feats):
    names = rng.sample(["server", "db", "paths", "user", "cache"], rng.randint(1, 3))
    keys = ["host", "port", "name", "mode", "path", "level"]
    values = ["localhost", "8080", "on", "off", "/tmp/x", "debug"]
    sections = []
    for name in names:
        pairs = [[k, rng.choice(values)] for k in rng.sample(keys, rng.randint(1, 3))]
        if 3 in feats and rng.random() < 0.7:
            pairs.append([rng.choice(keys), rng.choice(["a=b", "x==y", "k=v;w"])])
        if 3 in feats and rng.random() < 0.5:
            pairs.append([pairs[0][0], rng.choice(values)])
        sections.append([name, pairs])
    if 4 in feats:
        sections.insert(0, ["", [[rng.choice(keys), rng.choice(values)]]])
        sections.append(["empty", []])
    lines = []
    for name, pairs in sections:
        if 1 in feats and lines:
            lines.append("")
        if name:
            lines.append(f"[{name}]")
        for key, value in pairs:
            if 2 in feats and rng.random() < 0.4:
                lines.append(rng.choice(["# a comment", "; old = value", "   # indented = note", ";"]))
            if 1 in feats:
                lines.append(key + rng.choice([" = ", "= ", " =", "   =  "]) + value + rng.choice(["", "  "]))
            else:
                lines.append(f"{key}={value}")
    expected = {}
    for name, pairs in sections:
        section = {}
        for key, value in pairs:
            section[key] = value
        expected[name] = section
    return ("\n".join(lines) + "\n",), expected


HEX_ESCAPES = {" ": "%20", "&": "%26", "+": "%2B", "%": "%25", "=": "%3D"}


def encode(text, rng):
    out = ""
    for ch in text:
        if ch == " " and rng.random() < 0.6:
            out = out + "+"
        elif ch in HEX_ESCAPES:
            out = out + HEX_ESCAPES[ch]
        else:
            out = out + ch
    return out


def gen_query(rng, feats):
    keys = rng.sample(["q", "page", "tag", "sort", "name"], rng.randint(1, 3))
    pairs = [[k, rng.choice(["cats", "2", "red", "asc", "x9"])] for k in keys]
    if 1 in feats:
        pairs.insert(rng.randint(0, len(pairs)), [rng.choice(keys), rng.choice(["dogs", "7", "blue"])])
    if 2 in feats:
        pairs.append([rng.choice(["city", "expr", "note"]), rng.choice(["new york", "a&b", "1+1", "50% off", "x=y"])])
    parts = []
    for key, value in pairs:
        parts.append(key + "=" + (encode(value, rng) if 2 in feats else value))
    expected_pairs = list(pairs)
    if 3 in feats:
        flag = rng.choice(["debug", "raw", "v"])
        parts.insert(rng.randint(0, len(parts)), flag)
        expected_pairs.insert(parts.index(flag), [flag, ""])
        parts.append("f=a=b")
        expected_pairs.append(["f", "a=b"])
    text = "&".join(parts)
    if 4 in feats:
        text = rng.choice(["&", ""]) + text.replace("&", "&&", 1) + rng.choice(["&", "&&"])
    expected = {}
    for key, value in expected_pairs:
        expected[key] = expected.get(key, []) + [value]
    return (text,), expected


FACTORS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def gen_duration(rng, feats):
    units = ["d", "h", "m", "s"] if 4 in feats else ["h", "m", "s"]
    chosen = rng.sample(units, rng.randint(2, len(units)) if 1 in feats else 1)
    parts = [[rng.randint(1, 59), u] for u in chosen]
    if 4 in feats:
        parts.append([rng.randint(60, 400), rng.choice(chosen)])
    total = 0
    rendered = []
    for value, unit in parts:
        total = total + value * FACTORS[unit]
        rendered.append(str(value) + (unit.upper() if 2 in feats and rng.random() < 0.6 else unit))
    if 3 in feats:
        text = rng.choice(["", " "]) + " ".join(rendered) + rng.choice(["", " "])
    else:
        text = "".join(rendered)
    return (text,), total


def render_csv(field, rng, feats):
    if "," in field or '"' in field:
        return '"' + field.replace('"', '""') + '"'
    if field == "" and 4 in feats and rng.random() < 0.5:
        return '""'
    return field


def gen_csv(rng, feats):
    fields = [rng.choice(["a", "bob", "42", "x1", "end"]) for _ in range(rng.randint(1, 4))]
    if 1 in feats:
        fields.insert(rng.randint(0, len(fields)), "")
        fields.append("")
    if 2 in feats:
        fields.insert(rng.randint(0, len(fields)), rng.choice(["a,b", "1,000", ", lead"]))
    if 3 in feats:
        fields.insert(rng.randint(0, len(fields)), rng.choice(['say "hi"', '"', 'x""y']))
    if 4 in feats:
        fields.insert(rng.randint(0, len(fields)), rng.choice([" padded ", "  two", ""]))
    return (",".join(render_csv(f, rng, feats) for f in fields),), fields


FORMATS = [
    {
        "name": "parse_config", "signature": "parse_config(text: str) -> dict[str, dict[str, str]]", "gen": gen_config,
        "spec": "INI-style text. A line [name] starts a section. A key=value line sets a key in the current section: "
                "split at the FIRST '=' and strip spaces around key and value. Blank lines and lines whose first "
                "non-space character is '#' or ';' are ignored. Keys before any section header go in section ''. "
                "A repeated key keeps its last value. Every section header appears in the result, even with no keys.",
        "features": ["spaces around '=' and blank lines", "comment lines", "values containing '=' and repeated keys",
                     "keys before the first section and empty sections"],
        "hint": "Strip each line first, skip blanks and comment lines, and use partition on the first '=' so "
                "values keep their own '='; create a section's dict when its header is seen.",
    },
    {
        "name": "parse_query", "signature": "parse_query(qs: str) -> dict[str, list[str]]", "gen": gen_query,
        "spec": "A URL query string: pairs separated by '&'. Each pair is key=value split at the FIRST '='; a pair "
                "without '=' has value ''. Empty pairs (from '&&' or a leading/trailing '&') are skipped. In keys "
                "and values '+' means a space and %XX (two hex digits) is the character with that code. Return a "
                "dict mapping each key to the list of its values in order of appearance.",
        "features": ["repeated keys", "'+' and %XX escapes", "pairs without '=' and values containing '='",
                     "empty pairs"],
        "hint": "Split on '&' before decoding (an escaped '&' is data), skip empty pieces, split each piece at its "
                "first '=', and decode '+' and %XX in one left-to-right pass so an escaped plus stays a plus.",
    },
    {
        "name": "parse_duration", "signature": "parse_duration(text: str) -> int", "gen": gen_duration,
        "spec": "A duration is one or more parts, each an integer followed by a unit: d (86400 s), h (3600 s), "
                "m (60 s) or s (1 s), in any order; units may be upper or lower case; parts may be separated or "
                "surrounded by spaces; a unit may appear more than once (the parts add up). Return the total "
                "number of seconds.",
        "features": ["several units", "upper-case units", "spaces between and around parts",
                     "days, repeated units and numbers above fifty-nine"],
        "hint": "Scan characters, accumulating digits into a number and adding number times the unit's factor "
                "whenever a unit letter closes a part; lowercase the text and ignore spaces.",
    },
    {
        "name": "parse_csv_line", "signature": "parse_csv_line(line: str) -> list[str]", "gen": gen_csv,
        "spec": "One CSV line: fields separated by commas. A field starting with a double quote is quoted: it ends "
                "at the matching closing quote, commas inside it are data, and two double quotes inside stand for "
                "one; the surrounding quotes are not part of the value. Unquoted fields are taken verbatim (spaces "
                "kept). Empty fields are ''; an empty line is [''] and a trailing comma adds a final ''.",
        "features": ["empty fields", "quoted fields containing commas", "doubled quotes inside quoted fields",
                     "spaces kept verbatim and quoted empty fields"],
        "hint": "Walk the line with an index and a small state machine instead of split(','): inside quotes a "
                "doubled quote is data and a single quote ends the field; a trailing comma still starts one more "
                "field.",
    },
]

REFERENCES = {
    "parse_config": """\
def parse_config(text):
    result = {}
    section = ''
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in '#;':
            continue
        if line.startswith('[') and line.endswith(']'):
            section = line[1:-1]
            result.setdefault(section, {})
            continue
        key, sep, value = line.partition('=')
        result.setdefault(section, {})[key.strip()] = value.strip()
    return result
""",
    "parse_query": """\
def decode(s):
    out = ''
    i = 0
    while i < len(s):
        if s[i] == '+':
            out += ' '
            i += 1
        elif s[i] == '%' and i + 3 <= len(s):
            out += chr(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            out += s[i]
            i += 1
    return out


def parse_query(qs):
    result = {}
    for pair in qs.split('&'):
        if not pair:
            continue
        key, sep, value = pair.partition('=')
        result.setdefault(decode(key), []).append(decode(value))
    return result
""",
    "parse_duration": """\
def parse_duration(text):
    factors = {'d': 86400, 'h': 3600, 'm': 60, 's': 1}
    total = 0
    number = ''
    for ch in text.lower():
        if ch.isdigit():
            number += ch
        elif ch in factors:
            total += int(number) * factors[ch]
            number = ''
    return total
""",
    "parse_csv_line": """\
def parse_csv_line(line):
    fields = []
    i = 0
    while True:
        if i < len(line) and line[i] == '"':
            value = ''
            i += 1
            while i < len(line):
                if line[i] == '"':
                    if line[i + 1:i + 2] == '"':
                        value += '"'
                        i += 2
                        continue
                    i += 1
                    break
                value += line[i]
                i += 1
        else:
            j = line.find(',', i)
            if j == -1:
                j = len(line)
            value = line[i:j]
            i = j
        fields.append(value)
        if i >= len(line):
            return fields
        i += 1
""",
}


class ParseFormat:
    def __init__(self, features=2):
        self.features = features
        self.fmt = FORMATS[0]
        self.enabled = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def reset(self, rng, options):
        self.fmt = rng.choice(FORMATS)
        self.turn = 0
        self.enabled = sorted(rng.sample([1, 2, 3, 4], self.features))
        cases = [self.fmt["gen"](rng, []) for _ in range(4)]
        for feature in self.enabled:
            cases.append(self.fmt["gen"](rng, [feature]))
            cases.append(self.fmt["gen"](rng, [feature]))
        if len(self.enabled) > 1:
            cases.append(self.fmt["gen"](rng, self.enabled))
        self.tests, self.labels, self.visible = [], [], []
        for i, case in enumerate(cases):
            args, expected = case
            call = self.fmt["name"] + "(" + ", ".join(repr(a) for a in args) + ")"
            test = equality_test(call, expected)
            self.tests.append(test)
            self.labels.append(f"{call} == {expected!r}")
            if i < 2:
                self.visible.append(test)
        return self._task_text(), {"format": self.fmt["name"], "tests": len(self.tests)}

    def _task_text(self):
        examples = "\n".join("  " + label for label in self.labels[:2])
        return (
            f"Implement this parser:\n\ndef {self.fmt['signature']}:\n    \"\"\"{self.fmt['spec']}\"\"\"\n\n"
            f"Examples (basic syntax only):\n{examples}\n\n{len(self.tests) - 2} hidden tests check the whole "
            f"specification. Reply with the complete function in a ```python block. You have "
            f"{ENV_SPEC['max_turns']} turns."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        name = self.fmt["name"]
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
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nFix the parser and send it again. Turns left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        if not self.enabled:
            return self.fmt["hint"]
        tested = ", ".join(self.fmt["features"][f - 1] for f in self.enabled)
        return f"{self.fmt['hint']} The hidden tests exercise: {tested}."

    def reference_action(self):
        return "```python\n" + REFERENCES[self.fmt["name"]] + "```"
