# shape: HumanEval/MBPP-style fixed specification (SemVer 2.0.0 compare_versions, ValueError on malformed input) ...
"""Implement Semantic Versioning 2.0.0 precedence: a fixed specification, hidden comparison tests drawn by seed."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, raises_test, run_tests

ENV_SPEC = {
    "name": "SemverPrecedence",
    "domain": "code",
    "description": (
        "Write compare_versions(a, b) returning -1, 0 or 1 by Semantic Versioning 2.0.0 precedence (core numbers, "
        "pre-release identifiers, ignored build metadata) and raising ValueError on malformed versions. Three "
        "examples are shown; hidden tests drawn by seed are run after every submission, with feedback."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "players": 1,
    "difficulty": {
        "hidden": {"min": 6, "max": 18, "default": 10, "description": "hidden comparison tests"},
        "prerelease_depth": {
            "min": 0, "max": 3, "default": 2,
            "description": "most dot-separated pre-release identifiers in hidden versions (0: none)",
        },
    },
    "grounding": (
        "semver.org section 11: precedence compares MAJOR, MINOR, PATCH numerically; a pre-release version has "
        "lower precedence than the normal version; pre-release identifiers compare left to right, numeric ones "
        "numerically, alphanumeric ones in ASCII order, numeric below alphanumeric, and a longer list wins when all "
        "earlier identifiers are equal; build metadata (+...) does not affect precedence."
    ),
    "tags": ["code", "parsing", "comparison", "specification", "multi-turn"],
}

SPEC_TEXT = (
    "Write compare_versions(a, b) for Semantic Versioning 2.0.0 strings of the form "
    "MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]. Return -1 if a has lower precedence than b, 1 if higher, 0 if equal.\n"
    "Rules:\n"
    "1. MAJOR, MINOR and PATCH are non-negative decimal integers compared numerically, in that order.\n"
    "2. When the cores are equal, a version with a pre-release part is LOWER than one without it.\n"
    "3. Pre-release parts are dot-separated identifiers compared left to right: two numeric identifiers (digits "
    "only) compare as integers; two alphanumeric ones compare as strings in ASCII order; a numeric identifier is "
    "lower than an alphanumeric one; if all shared identifiers are equal, the part with more identifiers is higher.\n"
    "4. Build metadata (everything after '+') is ignored.\n"
    "5. Raise ValueError if the core does not have exactly three dot-separated parts made only of digits, or if a "
    "'-' or '+' is followed by an empty part.\n"
)

EXAMPLES = [("1.0.0", "2.0.0", -1), ("1.0.0-alpha", "1.0.0", -1), ("1.0.0+build.5", "1.0.0", 0)]

SOLUTION = '''def compare_versions(a, b):
    def parse(v):
        if not isinstance(v, str):
            raise ValueError("not a string")
        main, plus, build = v.partition("+")
        if plus and not build:
            raise ValueError("empty build")
        core, dash, pre = main.partition("-")
        if dash and not pre:
            raise ValueError("empty pre-release")
        parts = core.split(".")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise ValueError("bad core")
        ids = pre.split(".") if dash else []
        if any(not i for i in ids):
            raise ValueError("empty identifier")
        return [int(p) for p in parts], ids

    def cmp(x, y):
        return (x > y) - (x < y)

    core_a, pre_a = parse(a)
    core_b, pre_b = parse(b)
    c = cmp(core_a, core_b)
    if c:
        return c
    if not pre_a or not pre_b:
        return cmp(len(pre_b), len(pre_a)) if (pre_a or pre_b) else 0
    for x, y in zip(pre_a, pre_b):
        dx, dy = x.isdigit(), y.isdigit()
        if dx and dy:
            c = cmp(int(x), int(y))
        elif dx != dy:
            c = -1 if dx else 1
        else:
            c = cmp(x, y)
        if c:
            return c
    return cmp(len(pre_a), len(pre_b))
'''

WORDS = ["alpha", "beta", "rc", "Beta", "dev", "pre", "x1", "a10", "a9"]
BAD = ["1.2", "1.2.3.4", "1.a.3", "1.2.3-", "1.2.3+", "v1.2.3", "1..3", "1.2.3-alpha..1"]


def _parse(v):
    main, plus, build = v.partition("+")
    if plus and not build:
        return None
    core, dash, pre = main.partition("-")
    if dash and not pre:
        return None
    parts = core.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    ids = pre.split(".") if dash else []
    if any(not i for i in ids):
        return None
    return [int(p) for p in parts], ids


def _cmp(x, y):
    return (x > y) - (x < y)


def trusted_compare(a, b):
    core_a, pre_a = _parse(a)
    core_b, pre_b = _parse(b)
    c = _cmp(core_a, core_b)
    if c:
        return c
    if not pre_a and not pre_b:
        return 0
    if not pre_a:
        return 1
    if not pre_b:
        return -1
    for x, y in zip(pre_a, pre_b):
        dx, dy = x.isdigit(), y.isdigit()
        if dx and dy:
            c = _cmp(int(x), int(y))
        elif dx != dy:
            c = -1 if dx else 1
        else:
            c = _cmp(x, y)
        if c:
            return c
    return _cmp(len(pre_a), len(pre_b))


class SemverPrecedence:
    def __init__(self, hidden=10, prerelease_depth=2):
        self.hidden = hidden
        self.depth = prerelease_depth
        self.tests = []
        self.labels = []
        self.visible = []
        self.turn = 0
        self.done = False

    def _identifier(self, rng):
        if rng.random() < 0.45:
            return str(rng.choice([0, 1, 2, 9, 10, 11]))
        return rng.choice(WORDS)

    def _version(self, rng):
        core = ".".join(str(rng.choice([0, 1, 2, 9, 10, 12])) for _ in range(3))
        if self.depth > 0 and rng.random() < 0.7:
            n = rng.randint(1, self.depth)
            core = core + "-" + ".".join(self._identifier(rng) for _ in range(n))
        if rng.random() < 0.25:
            core = core + "+" + rng.choice(["build.1", "exp.sha.5114f85", "20240101", "001"])
        return core

    def _neighbour(self, rng, v):
        main, plus, build = v.partition("+")
        core, dash, pre = main.partition("-")
        kind = rng.choice([0, 0, 1, 1, 1, 2, 3, 3])
        if kind == 0:
            parts = core.split(".")
            i = rng.randint(0, 2)
            parts[i] = str(int(parts[i]) + rng.choice([1, 8, 10]))
            core = ".".join(parts)
        elif kind == 1 and self.depth > 0:
            ids = pre.split(".") if dash else []
            if ids and rng.random() < 0.5:
                ids = ids[:-1]
            else:
                ids = ids + [self._identifier(rng)]
            ids = ids[: self.depth] if len(ids) > self.depth else ids
            pre = ".".join(ids)
            dash = "-" if ids else ""
        elif kind == 2:
            build = rng.choice(["", "b7", "ci.42"])
            plus = "+" if build else ""
        elif self.depth > 0 and dash:
            ids = pre.split(".")
            i = rng.randrange(len(ids))
            ids[i] = self._identifier(rng)
            pre = ".".join(ids)
        return core + (dash + pre if dash else "") + (plus + build if plus else "")

    def reset(self, rng, options):
        self.turn = 0
        self.done = False
        cases = []
        seen = set()
        tries = 0
        while len(cases) < self.hidden and tries < 500:
            tries = tries + 1
            a = self._version(rng)
            b = self._neighbour(rng, a)
            if rng.random() < 0.5:
                a, b = b, a
            if (a, b) in seen or a == b or _parse(a) is None or _parse(b) is None:
                continue
            seen.add((a, b))
            cases.append((a, b))
        self.tests, self.labels, self.visible = [], [], []
        for a, b, want in EXAMPLES:
            call = f"compare_versions({a!r}, {b!r})"
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want}")
            self.visible.append(self.tests[-1])
        for a, b in cases:
            call = f"compare_versions({a!r}, {b!r})"
            want = trusted_compare(a, b)
            self.tests.append(equality_test(call, want))
            self.labels.append(f"{call} == {want}")
        for bad in rng.sample(BAD, 2):
            call = f"compare_versions({bad!r}, '1.0.0')"
            self.tests.append(raises_test(call, "ValueError"))
            self.labels.append(f"{call} raises ValueError")
        return self._task(), {"hidden_tests": len(self.tests) - len(EXAMPLES)}

    def _task(self):
        shown = "\n".join(f"  compare_versions({a!r}, {b!r}) == {w}" for a, b, w in EXAMPLES)
        return (
            f"{SPEC_TEXT}\nExamples:\n{shown}\n\nReply with the function in a ```python block (standard library "
            f"only). {len(self.tests) - len(EXAMPLES)} hidden tests check other pairs and malformed inputs. "
            f"You have {ENV_SPEC['max_turns']} submissions."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        code, error = parse_code(action)
        if error is None and "compare_versions" not in defined_names(code):
            error = "your code does not define compare_versions() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Submissions left: {left}."
            info = {"success": False, "format_error": error, "action_is_valid": False}
            return obs, 0.0, left <= 0, False, info
        result = run_tests(code, self.tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(self.tests)}
        if result["error"] is None and result["passed"] == len(self.tests):
            info["success"] = True
            self.done = True
            return f"All {len(self.tests)} tests pass.", 1.0, True, False, info
        feedback = describe_results(result, self.visible, self.labels)
        return f"{feedback}\nSubmissions left: {left}.", 0.0, left <= 0, False, info

    def privileged_hint(self):
        return (
            "Split off '+build' first and ignore it, then split the core from the pre-release at the first '-'. "
            "Watch the cases a string comparison gets wrong: '10' vs '9' in the core and in numeric identifiers, "
            "a numeric identifier against a word, and a shorter pre-release list that is a prefix of a longer one."
        )

    def reference_action(self):
        return "```python\n" + SOLUTION + "```"
