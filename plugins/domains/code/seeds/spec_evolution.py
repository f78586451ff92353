"""A specification that grows: each passed stage adds a requirement, and earlier tests must keep passing."""

from spade_domains.code.verify import defined_names, describe_results, equality_test, parse_code, run_tests

ENV_SPEC = {
    "name": "SpecEvolution",
    "domain": "code",
    "description": (
        "Implement a function whose specification grows stage by stage (Roman numerals, duration formatting, "
        "version comparison): passing every test of a stage reveals the next requirement; earlier tests stay."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 8,
    "players": 1,
    "difficulty": {
        "stages": {"min": 1, "max": 4, "default": 3, "description": "number of requirement stages to pass"},
    },
    "grounding": (
        "Incremental, test-driven development against changing requirements: Roman numeral rules (additive, "
        "then subtractive pairs), human-readable durations, and Semantic Versioning precedence (pre-release "
        "versions sort before the release)."
    ),
    "tags": ["code", "incremental", "test-driven", "multi-turn"],
}

ROMAN = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"], [50, "L"], [40, "XL"],
         [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]]


def to_roman(n):
    out = ""
    for value, symbol in ROMAN:
        while n >= value:
            out = out + symbol
            n = n - value
    return out


def roman_cases(stage, rng):
    if stage == 1:
        return [[n] for n in rng.sample([1, 2, 3], 3)]
    if stage == 2:
        pool = [n for n in range(5, 90) if "4" not in str(n) and "9" not in str(n)]
        return [[n] for n in rng.sample(pool, 3)]
    if stage == 3:
        pool = [n for n in range(4, 100) if "4" in str(n) or "9" in str(n)]
        return [[n] for n in [rng.choice([4, 9]), rng.choice([40, 49, 90, 99])] + rng.sample(pool, 2)]
    return [[n] for n in [rng.choice([400, 900, 1994, 3999])] + [rng.randint(100, 3999) for _ in range(3)]]


def format_duration(seconds):
    if seconds == 0:
        return "now"
    parts = []
    for size, unit in [[86400, "d"], [3600, "h"], [60, "m"], [1, "s"]]:
        if seconds >= size:
            parts.append(str(seconds // size) + unit)
            seconds = seconds % size
    return " ".join(parts)


def duration_cases(stage, rng):
    if stage == 1:
        return [[n] for n in rng.sample(range(1, 60), 3)]
    if stage == 2:
        return [[rng.randint(1, 59) * 60]] + [[rng.randint(60, 3599)] for _ in range(3)]
    if stage == 3:
        return [[rng.randint(1, 23) * 3600], [rng.randint(1, 23) * 3600 + rng.randint(1, 59)]] + [
            [rng.randint(3600, 86399)] for _ in range(2)]
    return [[0], [rng.randint(1, 9) * 86400]] + [[rng.randint(86400, 900000)] for _ in range(2)]


def compare_versions(a, b):
    core_a, sep_a, tag_a = a.partition("-")
    core_b, sep_b, tag_b = b.partition("-")
    nums_a = [int(x) for x in core_a.split(".")]
    nums_b = [int(x) for x in core_b.split(".")]
    while len(nums_a) < len(nums_b):
        nums_a.append(0)
    while len(nums_b) < len(nums_a):
        nums_b.append(0)
    if nums_a != nums_b:
        return -1 if nums_a < nums_b else 1
    if sep_a and sep_b:
        return 0 if tag_a == tag_b else (-1 if tag_a < tag_b else 1)
    if sep_a or sep_b:
        return -1 if sep_a else 1
    return 0


def version(rng, parts):
    return ".".join(str(rng.randint(0, 12)) for _ in range(parts))


def version_cases(stage, rng):
    if stage == 1:
        same = version(rng, 2)
        tricky = [rng.choice(["1.10", "2.10"]), rng.choice(["1.9", "2.9"])]
        return [[version(rng, 2), version(rng, 2)], [same, same], tricky]
    if stage == 2:
        base = version(rng, 2)
        return [[base, base + ".0"], [base + ".0.0", base], [base + "." + str(rng.randint(1, 9)), base],
                [version(rng, 3), version(rng, 1)]]
    tags = ["alpha", "beta", "rc"]
    base = version(rng, rng.randint(2, 3))
    if stage == 3:
        return [[base + "-" + rng.choice(tags), base], [base, base + "-" + rng.choice(tags)],
                [base + "-rc", base + ".1"]]
    first, second = rng.sample(tags, 2)
    return [[base + "-" + first, base + "-" + second], [base + "-" + first, base + "-" + first],
            [base + ".0-" + second, base + "-" + first]]


TASKS = [
    {
        "name": "to_roman", "signature": "to_roman(n: int) -> str", "cases": roman_cases,
        "solve": lambda args: to_roman(args[0]),
        "stages": [
            "For n from 1 to 3 return 'I' repeated n times.",
            "Also use V = 5, X = 10 and L = 50, written additively from the largest symbol down "
            "(8 -> 'VIII', 27 -> 'XXVII').",
            "Use the subtractive pairs IV = 4, IX = 9, XL = 40 and XC = 90 wherever they apply "
            "(4 -> 'IV', 49 -> 'XLIX'); n is below 100.",
            "Support n up to 3999 with C = 100, D = 500, M = 1000 and the subtractive pairs CD = 400 and CM = 900.",
        ],
        "hint": "Drive everything from one table of value-symbol pairs ordered from largest to smallest, subtractive "
                "pairs included, and greedily take the largest value that still fits; later stages only add rows.",
        "reference": """\
def to_roman(n):
    table = [(1000, 'M'), (900, 'CM'), (500, 'D'), (400, 'CD'), (100, 'C'), (90, 'XC'),
             (50, 'L'), (40, 'XL'), (10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]
    out = ''
    for value, symbol in table:
        while n >= value:
            out += symbol
            n -= value
    return out
""",
    },
    {
        "name": "format_duration", "signature": "format_duration(seconds: int) -> str",
        "solve": lambda args: format_duration(args[0]),
        "cases": duration_cases,
        "stages": [
            "For 1 <= seconds <= 59 return the number followed by 's' (45 -> '45s').",
            "Seconds below 3600: minutes then seconds separated by a space, leaving out a zero part "
            "(125 -> '2m 5s', 120 -> '2m').",
            "Add hours before minutes in the same way (3725 -> '1h 2m 5s', 3605 -> '1h 5s').",
            "Add days (86400 seconds) before hours, and 0 seconds is 'now'.",
        ],
        "hint": "Peel off the largest unit first with integer division and remainder, append only the non-zero "
                "parts, and join them with single spaces; the zero case needs its own branch.",
        "reference": """\
def format_duration(seconds):
    if seconds == 0:
        return 'now'
    parts = []
    for size, unit in ((86400, 'd'), (3600, 'h'), (60, 'm'), (1, 's')):
        if seconds >= size:
            parts.append(str(seconds // size) + unit)
            seconds %= size
    return ' '.join(parts)
""",
    },
    {
        "name": "compare_versions", "signature": "compare_versions(a: str, b: str) -> int",
        "solve": lambda args: compare_versions(args[0], args[1]), "cases": version_cases,
        "stages": [
            "Versions are 'X.Y' with integer parts. Return -1 if a < b, 0 if equal, 1 if a > b, comparing the "
            "parts numerically from left to right ('1.10' > '1.9').",
            "Versions may have any number of parts; missing parts count as 0 ('1.2' == '1.2.0').",
            "A version may end with a pre-release tag after '-' ('1.2-rc'); a pre-release is lower than the same "
            "version without a tag.",
            "Two pre-releases of the same version compare their tags as strings ('1.0-alpha' < '1.0-beta'); "
            "equal tags are equal.",
        ],
        "hint": "Split off the tag at the first '-', pad the numeric parts with zeros to the same length and "
                "compare them as integer lists; only when those are equal do the tags decide, and no tag beats "
                "any tag.",
        "reference": """\
def compare_versions(a, b):
    core_a, sep_a, tag_a = a.partition('-')
    core_b, sep_b, tag_b = b.partition('-')
    x = [int(p) for p in core_a.split('.')]
    y = [int(p) for p in core_b.split('.')]
    width = max(len(x), len(y))
    x = x + [0] * (width - len(x))
    y = y + [0] * (width - len(y))
    if x != y:
        return -1 if x < y else 1
    if sep_a and sep_b:
        return (tag_a > tag_b) - (tag_a < tag_b)
    if sep_a or sep_b:
        return -1 if sep_a else 1
    return 0
""",
    },
]


class SpecEvolution:
    def __init__(self, stages=3):
        self.stages = stages
        self.task = TASKS[0]
        self.stage = 1
        self.tests = []
        self.labels = []
        self.visible = []
        self.stage_of = []
        self.turn = 0

    def reset(self, rng, options):
        self.task = rng.choice(TASKS)
        self.stage = 1
        self.turn = 0
        self.tests, self.labels, self.visible, self.stage_of = [], [], [], []
        for stage in range(1, self.stages + 1):
            cases = self.task["cases"](stage, rng)
            for i, args in enumerate(cases):
                call = self.task["name"] + "(" + ", ".join(repr(a) for a in args) + ")"
                expected = self.task["solve"](args)
                test = equality_test(call, expected)
                self.tests.append(test)
                self.labels.append(f"{call} == {expected!r}")
                self.stage_of.append(stage)
                if i < len(cases) - 1:
                    self.visible.append(test)
        return self._stage_text("Stage 1"), {"function": self.task["name"], "stages": self.stages}

    def _current(self):
        return [i for i in range(len(self.tests)) if self.stage_of[i] <= self.stage]

    def _stage_text(self, title):
        rules = "\n".join(f"  {k + 1}. {self.task['stages'][k]}" for k in range(self.stage))
        examples = "\n".join(
            "  " + self.labels[i] for i in self._current()
            if self.stage_of[i] == self.stage and self.tests[i] in self.visible
        )
        return (
            f"{title} of {self.stages}. Implement {self.task['signature']}. Requirements so far:\n{rules}\n\n"
            f"New examples:\n{examples}\n\nOne more test per stage is hidden, and every earlier test must keep "
            f"passing. Reply with the complete function in a ```python block. You have {ENV_SPEC['max_turns']} "
            "turns in total."
        )

    def step(self, action):
        self.turn = self.turn + 1
        left = ENV_SPEC["max_turns"] - self.turn
        name = self.task["name"]
        code, error = parse_code(action)
        if error is None and name not in defined_names(code):
            error = f"your code does not define {name}() at the top level"
        if error is not None:
            obs = f"Format error: {error}. Turns left: {left}.\n\n{self._stage_text('Still stage ' + str(self.stage))}"
            info = {"success": False, "format_error": error, "action_is_valid": False, "stage": self.stage}
            return obs, 0.0, False, False, info
        current = self._current()
        tests = [self.tests[i] for i in current]
        labels = [self.labels[i] for i in current]
        result = run_tests(code, tests, 5.0)
        info = {"success": False, "passed": result["passed"], "total": len(tests), "stage": self.stage}
        if result["error"] is not None or result["passed"] != len(tests):
            feedback = describe_results(result, self.visible, labels)
            obs = f"Stage {self.stage} not passed yet.\n{feedback}\nFix the function and send it again. "
            obs = obs + f"Turns left: {left}."
            return obs, 0.0, False, False, info
        if self.stage == self.stages:
            info["success"] = True
            return f"All {self.stages} stages pass ({len(tests)} tests). Done.", 1.0, True, False, info
        self.stage = self.stage + 1
        info["stage"] = self.stage
        obs = f"Stage {self.stage - 1} passed.\n\n" + self._stage_text(f"Stage {self.stage}") + f" Turns left: {left}."
        return obs, 0.0, False, False, info

    def privileged_hint(self):
        return self.task["hint"]

    def reference_action(self):
        return "```python\n" + self.task["reference"] + "```"
