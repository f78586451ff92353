# shape: tokenizer/parser task (POSIX-like command-line word splitting with quotes, escapes, ValueError on ...
"""Write a tokenizer: split a command line into words with quotes and backslash escapes (a shlex-like lexer)."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "ShellWordSplit",
    "domain": "code",
    "description": (
        "Write split_command(line), a POSIX-shell-like word splitter: blanks separate words, single quotes are "
        "literal, double quotes allow \\\" and \\\\ escapes, a backslash outside quotes escapes the next character, "
        "adjacent pieces join, and unterminated quotes or a trailing backslash raise ValueError. Hidden seed-drawn "
        "lines test it, with feedback after each submission."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 5, "max": 16, "default": 10, "description": "hidden command lines"},
        "pieces": {"min": 2, "max": 8, "default": 4, "description": "most quoted/escaped pieces per hidden line"},
    },
    "grounding": (
        "Word splitting and quote removal in the POSIX shell command language (Shell Command Language, section "
        "2.2 Quoting): escape character, single quotes, double quotes where backslash keeps its special meaning "
        "only before a few characters; the behaviour of Python's shlex.split in POSIX mode for these cases."
    ),
    "tags": ["code", "parsing", "tokenizer", "strings", "multi-turn"],
}

SPEC_TEXT = (
    "Write split_command(line) -> list of str, splitting a command line into words:\n"
    "1. Unquoted spaces and tabs separate words; runs of them count once; leading/trailing blanks make no word.\n"
    "2. '...' (single quotes): every character up to the next single quote is literal (backslashes included).\n"
    "3. \"...\" (double quotes): characters are literal, except that a backslash followed by \" or by another "
    "backslash yields just that second character; any other backslash stays as a backslash.\n"
    "4. Outside quotes, a backslash makes the next character literal (e.g. '\\ ' is a space inside a word) and is "
    "itself dropped.\n"
    "5. Quoted and unquoted pieces with no blank between them form ONE word; '' or \"\" alone makes an empty word.\n"
    "6. Raise ValueError for an unterminated quote or a backslash as the very last character outside quotes.\n"
)

EXAMPLES = [
    ("ls -l  /tmp", ["ls", "-l", "/tmp"]),
    ("echo 'a b'c", ["echo", "a bc"]),
    ('say "x\\"y" \'\'', ["say", 'x"y', ""]),
]

SOLUTION = '''def split_command(line):
    words = []
    cur = []
    in_word = False
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch in " \\t":
            if in_word:
                words.append("".join(cur))
                cur = []
                in_word = False
            i += 1
        elif ch == "\\\\":
            if i + 1 >= n:
                raise ValueError("trailing backslash")
            cur.append(line[i + 1])
            in_word = True
            i += 2
        elif ch == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ValueError("unterminated single quote")
            cur.append(line[i + 1:end])
            in_word = True
            i = end + 1
        elif ch == '"':
            i += 1
            while True:
                if i >= n:
                    raise ValueError("unterminated double quote")
                c = line[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\\\" and i + 1 < n and line[i + 1] in '"\\\\':
                    cur.append(line[i + 1])
                    i += 2
                else:
                    cur.append(c)
                    i += 1
            in_word = True
        else:
            cur.append(ch)
            in_word = True
            i += 1
    if in_word:
        words.append("".join(cur))
    return words
'''


def trusted_split(line):
    words = []
    cur = []
    in_word = False
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch in " \t":
            if in_word:
                words.append("".join(cur))
                cur = []
                in_word = False
            i = i + 1
        elif ch == "\\":
            if i + 1 >= n:
                return None
            cur.append(line[i + 1])
            in_word = True
            i = i + 2
        elif ch == "'":
            end = line.find("'", i + 1)
            if end < 0:
                return None
            cur.append(line[i + 1:end])
            in_word = True
            i = end + 1
        elif ch == '"':
            i = i + 1
            closed = False
            while i < n:
                c = line[i]
                if c == '"':
                    i = i + 1
                    closed = True
                    break
                if c == "\\" and i + 1 < n and line[i + 1] in '"\\':
                    cur.append(line[i + 1])
                    i = i + 2
                else:
                    cur.append(c)
                    i = i + 1
            if not closed:
                return None
            in_word = True
        else:
            cur.append(ch)
            in_word = True
            i = i + 1
    if in_word:
        words.append("".join(cur))
    return words


PLAIN = ["ls", "-a", "cp", "x.txt", "dir/", "a=b", "$HOME", "*.py", "1"]
INNER = ["a b", "it's", "x\\y", "q\"t", "", " ", "tab\there", "\\\\", "--n"]


class ShellWordSplit:
    def __init__(self, hidden=10, pieces=4):
        self.hidden = hidden
        self.pieces = pieces
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0

    def _piece(self, rng):
        kind = rng.randint(0, 4)
        if kind == 0:
            return rng.choice(PLAIN)
        if kind == 1:
            text = rng.choice(INNER).replace("'", "")
            return "'" + text + "'"
        if kind == 2:
            text = rng.choice(INNER)
            out = []
            for ch in text:
                if ch == '"' or (ch == "\\" and rng.random() < 0.6):
                    out.append("\\" + ch)
                else:
                    out.append(ch)
            return '"' + "".join(out) + '"'
        if kind == 3:
            return "\\" + rng.choice([" ", "'", '"', "\\", "n", "$"])
        return rng.choice([" ", "  ", "\t", " "])

    def _line(self, rng):
        parts = [rng.choice(PLAIN)]
        for _ in range(rng.randint(1, self.pieces)):
            parts.append(self._piece(rng))
        line = "".join(parts)
        if rng.random() < 0.15:
            line = line + rng.choice(["'open", ' "open', "\\"])
        if rng.random() < 0.2:
            line = rng.choice([" ", "\t "]) + line
        return line

    def reset(self, rng, options):
        self.turn = 0
        self.tests, self.labels, self.visible = [], [], []
        for line, want in EXAMPLES:
            call = f"split_command({line!r})"
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want!r}")
            self.visible.append(self.tests[-1])
        seen = set(line for line, _ in EXAMPLES)
        errors = 0
        tries = 0
        while len(self.tests) < len(EXAMPLES) + self.hidden and tries < 500:
            tries = tries + 1
            line = self._line(rng)
            if line in seen:
                continue
            want = trusted_split(line)
            if want is None and errors >= 2:
                continue
            seen.add(line)
            call = f"split_command({line!r})"
            if want is None:
                errors = errors + 1
                self.tests.append(raises_test(call, "ValueError"))
                self.labels.append(f"{call} raises ValueError")
            else:
                self.tests.append(equality_test(call, want))
                self.labels.append(f"{call} == {want!r}")
        bad = rng.choice(["echo 'unterminated", 'echo "half', "echo end\\"])
        self.tests.append(raises_test(f"split_command({bad!r})", "ValueError"))
        self.labels.append(f"split_command({bad!r}) raises ValueError")
        examples = "\n".join(f"  split_command({line!r}) == {w!r}" for line, w in EXAMPLES)
        obs = (
            f"{SPEC_TEXT}\nExamples (Python literals):\n{examples}\n\nReply with the function in a ```python block "
            f"(no shlex). Hidden tests check other lines. You have {ENV_SPEC['max_turns']} submissions."
        )
        return obs, {"hidden_tests": len(self.tests) - len(EXAMPLES)}

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "split_command" not in defined_names(code):
            error = "your code does not define split_command() at the top level"
        if error is not None:
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return f"Format error: {error}. Submissions left: {left}.", 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "Scan character by character with a 'currently inside a word' flag separate from the buffer, so that '' "
            "still produces an empty word; blanks end a word only outside quotes. Inside double quotes only \\\" and "
            "\\\\ are escapes; outside quotes every backslash escapes the next character."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
