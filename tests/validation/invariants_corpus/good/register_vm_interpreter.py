# expect: accepted
"""Interpreter: write run(program) for a four-register assembly language whose division and jump rules vary by seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "RegisterVmInterpreter",
    "domain": "code",
    "description": (
        "The agent writes run(program: str) -> list[int], an interpreter for a tiny register machine (set, add, "
        "sub, mul, div, mod, jnz, out on registers a-d). Each seed fixes how div/mod round (toward zero as in C, "
        "or toward minus infinity as in Python) and whether jnz jumps by a relative offset or to an absolute line "
        "number. Hidden test programs (arithmetic, loops, digit manipulation) are drawn per seed."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 3, "max": 10, "default": 6, "description": "hidden test programs"},
        "length": {"min": 3, "max": 10, "default": 6, "description": "instructions in straight-line test programs"},
    },
    "grounding": (
        "Toy assembly interpreters in the style of Advent of Code's assembunny and the Java/C vs Python integer "
        "division conventions: C99 truncates the quotient toward zero (remainder takes the dividend's sign), "
        "Python floors it (remainder takes the divisor's sign); relative versus absolute branch targets."
    ),
    "tags": ["code", "interpreter", "simulation", "integer-division"],
}

REGS = ["a", "b", "c", "d"]
RULES = {
    "trunc": (
        "div X Y sets X to X / Y rounded toward zero (as in C: -7 / 2 is -3); mod X Y sets X to X - Y * q where "
        "q is that truncated quotient (so -7 mod 2 is -1)."
    ),
    "floor": (
        "div X Y sets X to X / Y rounded down toward minus infinity (as in Python: -7 / 2 is -4); mod X Y sets X "
        "to X - Y * q where q is that floored quotient (so -7 mod 2 is 1)."
    ),
}
JUMPS = {
    "rel": "jnz X Y: if the value of X is not 0, jump Y lines relative to this line (jnz a -2 goes back two "
           "lines; Y = 1 just moves on); otherwise go to the next line.",
    "abs": "jnz X Y: if the value of X is not 0, jump to line number Y (lines are numbered from 1); otherwise go "
           "to the next line.",
}


def quotient(x, y, rule):
    if rule == "floor":
        return x // y
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def execute(lines, rule, style):
    regs = {r: 0 for r in REGS}
    out = []
    pc = 0
    steps = 0
    while 0 <= pc < len(lines) and steps < 20000:
        steps = steps + 1
        parts = lines[pc].split()
        op = parts[0]
        vals = [regs[t] if t in regs else int(t) for t in parts[1:]]
        if op == "jnz":
            if vals[0] != 0:
                pc = pc + vals[1] if style == "rel" else vals[1] - 1
                continue
        elif op == "out":
            out.append(vals[0])
        else:
            x = parts[1]
            y = vals[1]
            if op == "set":
                regs[x] = y
            elif op == "add":
                regs[x] = regs[x] + y
            elif op == "sub":
                regs[x] = regs[x] - y
            elif op == "mul":
                regs[x] = regs[x] * y
            elif op == "div":
                regs[x] = quotient(regs[x], y, rule)
            elif op == "mod":
                regs[x] = regs[x] - y * quotient(regs[x], y, rule)
        pc = pc + 1
    return out


def t_arith(rng, length):
    lines = []
    for _ in range(length):
        op = rng.choice(["set", "add", "sub", "mul", "add", "sub"])
        reg = rng.choice(REGS)
        src = rng.choice(REGS) if rng.random() < 0.35 else str(rng.randint(-9, 9))
        lines.append(f"{op} {reg} {src}")
    for reg in rng.sample(REGS, 2):
        lines.append(f"out {reg}")
    return lines


def t_countdown(rng, length):
    n = rng.randint(3, 9)
    return ["set a " + str(n), "set b 0", "add b a", "sub a 1", "jnz a -2", "out b", "out a"]


def t_digits(rng, length):
    n = rng.randint(100, 99999)
    base = rng.choice([10, 10, 8, 2])
    return [f"set a {n}", "set b 0", "set d 0", "set c a", f"mod c {base}", "add b c", f"div a {base}",
            "add d 1", "jnz a -5", "out b", "out d"]


def t_average(rng, length):
    xs = [rng.randint(1, 60) for _ in range(rng.randint(2, 4))]
    lines = [f"set a {xs[0]}"] + [f"add a {x}" for x in xs[1:]]
    lines = lines + ["set b a", f"div a {len(xs)}", f"mod b {len(xs)}", "out a", "out b"]
    return lines


def t_signed(rng, length):
    y = rng.choice([2, 3, 4, 5, 7])
    x = -rng.randint(7, 80)
    while x % y == 0:
        x = x - 1
    return [f"set a {x}", "set b a", f"div a {y}", f"mod b {y}", "out a", "out b"]


TEMPLATES = [t_signed, t_arith, t_countdown, t_digits, t_average]


def to_absolute(lines):
    out = []
    for i, line in enumerate(lines):
        parts = line.split()
        if parts[0] == "jnz":
            out.append(f"jnz {parts[1]} {i + int(parts[2]) + 1}")
        else:
            out.append(line)
    return out


class RegisterVmInterpreter:
    def __init__(self, hidden=6, length=6):
        self.hidden = hidden
        self.length = length
        self.rule = "trunc"
        self.style = "rel"
        self.programs = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.done = False

    def reset(self, rng, options):
        self.rule = rng.choice(["trunc", "floor"])
        self.style = rng.choice(["rel", "abs"])
        self.turn = 0
        self.done = False
        drafts = [t_countdown(rng, self.length), t_arith(rng, self.length)]
        for i in range(self.hidden):
            template = TEMPLATES[i % len(TEMPLATES)] if i < len(TEMPLATES) else rng.choice(TEMPLATES)
            drafts.append(template(rng, self.length))
        self.programs = []
        for lines in drafts:
            self.programs.append(to_absolute(lines) if self.style == "abs" else lines)
        self.tests, self.labels = [], []
        for lines in self.programs:
            text = "\n".join(lines)
            expected = execute(lines, self.rule, self.style)
            self.tests.append(equality_test(f"run({text!r})", expected))
            self.labels.append(f"run({text!r}) == {expected!r}")
        self.visible = self.tests[:2]
        return self._task(), {"division": self.rule, "jumps": self.style}

    def _task(self):
        examples = "\n".join("  " + label for label in self.labels[:2])
        return (
            "Write run(program: str) -> list[int], an interpreter for this register machine.\n"
            "- Registers a, b, c, d hold integers and start at 0. The program is one instruction per line, tokens "
            "separated by single spaces. An operand Y is a register name or an integer literal (maybe negative).\n"
            "- set X Y: X = Y.   add X Y: X = X + Y.   sub X Y: X = X - Y.   mul X Y: X = X * Y.\n"
            f"- {RULES[self.rule]}\n"
            f"- {JUMPS[self.style]}\n"
            "- out X: append the value of X to the output list.\n"
            "- Execution starts at the first line; the program ends as soon as the next line to run is outside "
            "the program. Return the output list. Test programs never divide by zero and always end.\n\n"
            f"Examples:\n{examples}\n\nReply with the function in a ```python block. Hidden tests run other "
            f"programs; you have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        if self.done:
            return "The episode is over.", 0.0, True, False, {"success": False}
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "run" not in defined_names(code):
            error = "your code does not define run(program) at the top level"
        if error is not None:
            if left <= 0:
                self.done = True
            obs = f"Format error: {error}. Send the function in a ```python block. Submissions left: {left}."
            return obs, 0.0, self.done, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            self.done = True
            info["success"] = True
            return f"All {len(self.tests)} programs produce the expected output.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        if left <= 0:
            self.done = True
            return f"{feedback}\nNo submissions left.", 0.0, True, False, info
        return f"{feedback}\nSubmissions left: {left}.", 0.0, False, False, info

    def privileged_hint(self):
        div = (
            "Python's // and % floor, so for the C rule compute the quotient from absolute values and fix its sign, "
            "then derive the remainder from that quotient."
            if self.rule == "trunc" else
            "The floor rule matches Python's // exactly; take the remainder as X - Y * quotient rather than trusting "
            "another language's habits."
        )
        jump = (
            "Relative jumps add Y to the current line index and must skip the usual +1."
            if self.style == "rel" else
            "Absolute targets are 1-based line numbers, so subtract one to get a list index."
        )
        return f"{div} {jump} Read operands through one helper that maps register names to values."

    def reference_action(self):
        div = (
            "    if rule_floor:\n        return x // y\n"
            if self.rule == "floor" else
            "    q = abs(x) // abs(y)\n    return q if (x >= 0) == (y > 0) else -q\n"
        )
        jump = "pc + vals[1]" if self.style == "rel" else "vals[1] - 1"
        return (
            "```python\n"
            f"rule_floor = {self.rule == 'floor'}\n\n\n"
            "def _quot(x, y):\n" + div + "\n\n"
            "def run(program):\n"
            "    lines = [ln for ln in program.split('\\n') if ln.strip()]\n"
            "    regs = {'a': 0, 'b': 0, 'c': 0, 'd': 0}\n"
            "    out = []\n"
            "    pc = 0\n"
            "    while 0 <= pc < len(lines):\n"
            "        parts = lines[pc].split()\n"
            "        op = parts[0]\n"
            "        vals = [regs[t] if t in regs else int(t) for t in parts[1:]]\n"
            "        if op == 'jnz':\n"
            "            if vals[0] != 0:\n"
            f"                pc = {jump}\n"
            "                continue\n"
            "        elif op == 'out':\n"
            "            out.append(vals[0])\n"
            "        else:\n"
            "            x, y = parts[1], vals[1]\n"
            "            if op == 'set':\n"
            "                regs[x] = y\n"
            "            elif op == 'add':\n"
            "                regs[x] += y\n"
            "            elif op == 'sub':\n"
            "                regs[x] -= y\n"
            "            elif op == 'mul':\n"
            "                regs[x] *= y\n"
            "            elif op == 'div':\n"
            "                regs[x] = _quot(regs[x], y)\n"
            "            elif op == 'mod':\n"
            "                regs[x] = regs[x] - y * _quot(regs[x], y)\n"
            "        pc += 1\n"
            "    return out\n"
            "```"
        )
