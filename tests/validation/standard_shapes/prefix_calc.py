# shape: parser/evaluator: implement an evaluator for a tiny parenthesised prefix language (tokens, nesting,
# arity and error rules fully specified; the operator set is drawn per seed); hidden tests are random programs.
"""Write evaluate(src) for a tiny prefix (s-expression) calculator whose operator set varies by seed."""

import re

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "PrefixCalcEvaluator",
    "domain": "code",
    "description": (
        "Implement evaluate(src) for a tiny s-expression calculator: integer literals and (op arg ...) forms. "
        "Each seed draws which operators exist (from add, mul, sub, neg, max, min, div, mod, if) and the spec "
        "fixes arity, floor division, lazy if, and the exceptions for malformed input. Hidden tests are random "
        "programs and malformed sources; one failing hidden test is revealed per failed try."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 5,
    "players": 1,
    "difficulty": {
        "depth": {"min": 1, "max": 4, "default": 3, "description": "nesting depth of the random test programs"},
        "operators": {"min": 3, "max": 7, "default": 5, "description": "operators in the language"},
    },
    "grounding": (
        "The Committee of Public Safety's decrees were applied as nested rules (a rule applied to the result of "
        "other rules); the tiny language here evaluates nested prefix forms the same way, inside out."
    ),
    "tags": ["code", "parser", "interpreter", "multi-turn"],
}

OPS = {
    "add": ("any", "add takes one or more arguments and returns their sum"),
    "mul": ("any", "mul takes one or more arguments and returns their product"),
    "max": ("any", "max takes one or more arguments and returns the largest"),
    "min": ("any", "min takes one or more arguments and returns the smallest"),
    "sub": (2, "sub takes exactly two arguments a b and returns a - b"),
    "neg": (1, "neg takes exactly one argument and returns its negation"),
    "div": (2, "div takes exactly two arguments a b and returns floor(a / b) (Python //); ZeroDivisionError if b is 0"),
    "mod": (2, "mod takes exactly two arguments a b and returns a % b with Python's sign rule; ZeroDivisionError if b is 0"),
    "if": (3, "if takes exactly three arguments c t e: when c is non-zero it returns t, otherwise e; only the chosen "
              "branch is evaluated (an error in the other branch is never raised)"),
}
TOKEN = re.compile(r"\(|\)|-?[0-9]+|[a-z]+")


def tokenize(src):
    tokens = []
    pos = 0
    while pos < len(src):
        if src[pos] in " \t\n":
            pos = pos + 1
            continue
        m = TOKEN.match(src, pos)
        if m is None:
            raise ValueError("bad character")
        tokens.append(m.group(0))
        pos = m.end()
    return tokens


def parse(tokens, pos, ops):
    """Return (tree, next position); a tree is an int or [op, child, ...]."""
    if pos >= len(tokens):
        raise ValueError("unexpected end")
    tok = tokens[pos]
    if tok == ")":
        raise ValueError("unexpected )")
    if tok != "(":
        if tok[0].isalpha():
            raise ValueError("bare name")
        return int(tok), pos + 1
    if pos + 1 >= len(tokens) or tokens[pos + 1] not in ops:
        raise ValueError("unknown operator")
    op = tokens[pos + 1]
    pos = pos + 2
    args = []
    while pos < len(tokens) and tokens[pos] != ")":
        child, pos = parse(tokens, pos, ops)
        args.append(child)
    if pos >= len(tokens):
        raise ValueError("missing )")
    arity = OPS[op][0]
    if (arity == "any" and not args) or (arity != "any" and len(args) != arity):
        raise ValueError("wrong arity")
    return [op] + args, pos + 1


def run_tree(tree):
    """Evaluate a parsed tree; returns an int or the string 'ZeroDivisionError'."""
    if isinstance(tree, int):
        return tree
    op = tree[0]
    if op == "if":
        cond = run_tree(tree[1])
        if isinstance(cond, str):
            return cond
        return run_tree(tree[2] if cond != 0 else tree[3])
    vals = []
    for child in tree[1:]:
        v = run_tree(child)
        if isinstance(v, str):
            return v
        vals.append(v)
    if op == "add":
        return sum(vals)
    if op == "mul":
        out = 1
        for v in vals:
            out = out * v
        return out
    if op == "max":
        return max(vals)
    if op == "min":
        return min(vals)
    if op == "sub":
        return vals[0] - vals[1]
    if op == "neg":
        return -vals[0]
    if vals[1] == 0:
        return "ZeroDivisionError"
    return vals[0] // vals[1] if op == "div" else vals[0] % vals[1]


def evaluate_model(src, ops):
    """'ValueError', 'ZeroDivisionError' or the int value."""
    try:
        tokens = tokenize(src)
        if not tokens:
            return "ValueError"
        tree, pos = parse(tokens, 0, ops)
        if pos != len(tokens):
            return "ValueError"
    except ValueError:
        return "ValueError"
    return run_tree(tree)


SOLUTION = '''import re

OPS = {OPS}
ARITY = {ARITY}

def evaluate(src):
    tokens = re.findall(r"\\(|\\)|-?[0-9]+|[a-z]+|\\S", src)
    for t in tokens:
        if not re.fullmatch(r"\\(|\\)|-?[0-9]+|[a-z]+", t):
            raise ValueError("bad character " + t)
    if not tokens:
        raise ValueError("empty")

    def parse(pos):
        if pos >= len(tokens):
            raise ValueError("unexpected end")
        tok = tokens[pos]
        if tok == ")":
            raise ValueError("unexpected )")
        if tok != "(":
            if tok[0].isalpha():
                raise ValueError("bare name")
            return int(tok), pos + 1
        if pos + 1 >= len(tokens) or tokens[pos + 1] not in OPS:
            raise ValueError("unknown operator")
        op = tokens[pos + 1]
        pos += 2
        args = []
        while pos < len(tokens) and tokens[pos] != ")":
            child, pos = parse(pos)
            args.append(child)
        if pos >= len(tokens):
            raise ValueError("missing )")
        n = ARITY[op]
        if (n == 0 and not args) or (n and len(args) != n):
            raise ValueError("wrong arity for " + op)
        return [op] + args, pos + 1

    tree, end = parse(0)
    if end != len(tokens):
        raise ValueError("trailing tokens")

    def run(t):
        if isinstance(t, int):
            return t
        op, args = t[0], t[1:]
        if op == "if":
            return run(args[1]) if run(args[0]) != 0 else run(args[2])
        vals = [run(a) for a in args]
        if op == "add":
            return sum(vals)
        if op == "mul":
            out = 1
            for v in vals:
                out *= v
            return out
        if op == "max":
            return max(vals)
        if op == "min":
            return min(vals)
        if op == "sub":
            return vals[0] - vals[1]
        if op == "neg":
            return -vals[0]
        if op == "div":
            return vals[0] // vals[1]
        return vals[0] % vals[1]

    return run(tree)
'''


class PrefixCalcEvaluator:
    def __init__(self, depth=3, operators=5):
        self.depth = depth
        self.n_ops = operators
        self.ops = []
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.examples = []

    def _gen(self, rng, depth):
        if depth == 0 or rng.random() < 0.25:
            return str(rng.randint(-9, 12))
        op = rng.choice(self.ops)
        arity = OPS[op][0]
        n = rng.randint(1, 3) if arity == "any" else arity
        args = [self._gen(rng, depth - 1) for _ in range(n)]
        sep = rng.choice([" ", " ", "  ", "\n"])
        return "(" + op + " " + sep.join(args) + ")"

    def _malformed(self, rng):
        good = self._gen(rng, 2)
        unknown = rng.choice([o for o in sorted(OPS) if o not in self.ops] + ["pow"])
        fixed_op = [o for o in self.ops if OPS[o][0] != "any"]
        cases = [good + ")", "(" + good, "", "   ", "(" + unknown + " 1 2)", "()", "1 2", "(add)" if "add" in self.ops
                 else "(" + self.ops[0] + ")", "x", "(" + self.ops[0] + " 3 $)"]
        if fixed_op:
            op = rng.choice(fixed_op)
            cases.append("(" + op + " " + " ".join(["4"] * (OPS[op][0] + 1)) + ")")
        rng.shuffle(cases)
        return cases[:5]

    def _add(self, src):
        want = evaluate_model(src, self.ops)
        call = f"evaluate({src!r})"
        if isinstance(want, str):
            self.tests.append(raises_test(call, want))
            self.labels.append(f"{call} raises {want}")
        else:
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want!r}")

    def reset(self, rng, options):
        self.turn = 0
        names = sorted(OPS)
        rng.shuffle(names)
        self.ops = sorted(names[: self.n_ops])
        self.tests, self.labels, self.visible = [], [], []
        self.examples = []
        while len(self.examples) < 2:
            src = self._gen(rng, 2)
            if src.startswith("(") and not isinstance(evaluate_model(src, self.ops), str):
                self.examples.append(src)
        for src in self.examples:
            self._add(src)
            self.visible.append(self.tests[-1])
        self._add("(" + self.ops[0] + " 7" + (" -2" if OPS[self.ops[0]][0] in ("any", 2, 3) else "")
                  + (" 5" if OPS[self.ops[0]][0] == 3 else "") + ")")
        if "if" in self.ops:
            zero_branch = "(div 1 0)" if "div" in self.ops else ("(mod 1 0)" if "mod" in self.ops else "(if 1 2 3)")
            self._add(f"(if 0 {zero_branch} -4)")
            self._add(f"(if -1 8 {zero_branch})")
        for op in ("div", "mod"):
            if op in self.ops:
                self._add(f"({op} -7 2)")
                self._add(f"({op} 5 (add 0 0))" if "add" in self.ops else f"({op} 5 0)")
        seen = set(self.examples)
        tries = 0
        while len(self.tests) < 16 and tries < 200:
            tries = tries + 1
            src = self._gen(rng, self.depth)
            if src not in seen:
                seen.add(src)
                self._add(src)
        for src in self._malformed(rng):
            self._add(src)
        return self._task(), {"operators": list(self.ops)}

    def _task(self):
        rules = "\n".join(f"  - {OPS[o][1]}" for o in self.ops)
        shown = "\n".join(f"  {self.labels[i]}" for i in range(len(self.examples)))
        return (
            "Write a Python function evaluate(src) for this tiny language and reply with it in a ```python block.\n"
            "A program is one expression: an integer literal (digits with an optional leading '-', e.g. -12), or a "
            "form '(' operator argument ... ')' whose arguments are expressions. Tokens are '(', ')', integer "
            "literals and lowercase operator names, separated by any amount of spaces, tabs or newlines (spaces "
            "around parentheses are optional). The operators are exactly:\n" + rules + "\n"
            "Raise ValueError for any malformed source: empty or blank source, any other character, an operator "
            "name that is not listed (or a name outside a form's first position), a form with no operator, the wrong "
            "number of arguments, unbalanced parentheses, or anything after the first complete expression.\n"
            "Examples:\n" + shown + f"\nHidden tests check other programs. You have {ENV_SPEC['max_turns']} tries."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "evaluate" not in defined_names(code):
            error = "your code does not define evaluate() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Tries left: {left}.\n\n{self._task()}"
            return obs, 0.0, False, left <= 0, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        lines = [describe_results(result, self.visible, self.labels)]
        if result["error"] is None:
            for i, item in enumerate(result["results"]):
                if not item["ok"] and self.tests[i] not in self.visible:
                    self.visible.append(self.tests[i])
                    lines.append(f"Newly revealed failing test: {self.labels[i]}\n  error: {(item['error'] or '')[:300]}")
                    break
        lines.append(f"Tries left: {left}.")
        return "\n".join(lines), 0.0, False, left <= 0, info

    def privileged_hint(self):
        return (
            "Tokenize first and reject any leftover character; parse recursively returning (tree, next index) so "
            "you can check arity and trailing tokens; evaluate 'if' lazily and use Python's // and % for floor "
            "division and modulo."
        )

    def reference_action(self):
        ops = {o: (0 if OPS[o][0] == "any" else OPS[o][0]) for o in self.ops}
        code = SOLUTION.replace("{OPS}", repr(sorted(ops))).replace("{ARITY}", repr(ops))
        return "```python\n" + code + "```"
