"""A multi-part counting problem (complement counting) with partial credit per part."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "CountingComplements",
    "domain": "math",
    "description": (
        "Count committees with seniors or strings with a special letter, in parts: all, none, at least one, "
        "exactly one, at least two. Each part earns partial credit; two tries per part."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "parts": {"min": 3, "max": 5, "default": 5, "description": "parts of the problem to answer"},
        "scale": {"min": 1, "max": 3, "default": 2, "description": "size of the sets (bigger numbers)"},
    },
    "grounding": (
        "Enumerative combinatorics: binomial coefficients C(n, k), the product rule A^L for strings, counting by "
        "complement (at least one = all - none) and splitting by cases (exactly one, at least two)."
    ),
    "tags": ["combinatorics", "counting", "binomial", "partial-credit"],
}

ATTEMPTS = 2


def choose(n, k):
    if k < 0 or k > n:
        return 0
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


def committee(rng, scale):
    n = rng.randint(6 + 2 * scale, 9 + 3 * scale)
    m = rng.randint(2, min(6, n - 3))
    k = rng.randint(3, min(n - m, 4 + scale))
    story = (f"A club has {n} members, {m} of them seniors. A committee of {k} members is chosen "
             "(order does not matter).")
    items = [
        ("How many committees are possible in total?", choose(n, k), "Choose the committee from all members."),
        ("How many committees contain no senior?", choose(n - m, k), "Choose only from the non-seniors."),
        ("How many committees contain at least one senior?", choose(n, k) - choose(n - m, k),
         "Count the complement: all committees minus those without seniors."),
        ("How many committees contain exactly one senior?", m * choose(n - m, k - 1),
         "Pick the one senior, then fill the other seats from the non-seniors."),
        ("How many committees contain at least two seniors?",
         choose(n, k) - choose(n - m, k) - m * choose(n - m, k - 1),
         "At least one minus exactly one."),
    ]
    return story, items


def strings(rng, scale):
    a = rng.randint(3, 3 + 2 * scale)
    length = rng.randint(3, 3 + scale)
    letters = "ABCDEFGHI"[:a]
    special = letters[rng.randint(0, a - 1)]
    story = (
        f"Strings of length {length} are formed from the {a} letters {', '.join(letters)} (repetition allowed). "
        f"The letter {special} is special."
    )
    items = [
        ("How many strings are there in total?", a ** length, "Each position independently takes any letter."),
        (f"How many strings contain no {special}?", (a - 1) ** length, "Every position avoids the special letter."),
        (f"How many strings contain at least one {special}?", a ** length - (a - 1) ** length,
         "Count the complement: all strings minus those without it."),
        (f"How many strings contain exactly one {special}?", length * (a - 1) ** (length - 1),
         "Pick its position, then fill the rest with the other letters."),
        (f"How many strings contain at least two {special}s?",
         a ** length - (a - 1) ** length - length * (a - 1) ** (length - 1),
         "At least one minus exactly one."),
    ]
    return story, items


class CountingComplements:
    def __init__(self, parts=5, scale=2):
        self.n_parts = parts
        self.scale = scale
        self.story = ""
        self.items = []
        self.index = 0
        self.attempts = 0
        self.correct = 0
        self.done = False

    def reset(self, rng, options):
        make = committee if rng.random() < 0.5 else strings
        story, items = make(rng, self.scale)
        while any(item[1] <= 0 for item in items):
            story, items = make(rng, self.scale)
        self.story = story
        self.items = items[: self.n_parts]
        self.index = 0
        self.attempts = 0
        self.correct = 0
        self.done = False
        obs = (
            f"{story}\nAnswer {len(self.items)} parts in order, each as \\boxed{{n}}; every correct part earns "
            f"credit and you have {ATTEMPTS} tries per part.\n{self.question()}"
        )
        return obs, {"step": 0, "correct": 0}

    def question(self):
        return f"Part {self.index + 1}/{len(self.items)}: {self.items[self.index][0]}"

    def advance(self, note, reward):
        self.index = self.index + 1
        self.attempts = 0
        if self.index == len(self.items):
            self.done = True
            success = self.correct == len(self.items)
            obs = f"{note} Done: {self.correct}/{len(self.items)} parts correct."
            return obs, reward, True, False, {"success": success, "step": self.index, "correct": self.correct}
        return f"{note}\n{self.question()}", reward, False, False, {
            "success": False, "step": self.index, "correct": self.correct}

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            obs = f"Reply with one integer as \\boxed{{n}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected an integer in \\boxed{}", "step": self.index,
                                            "correct": self.correct}
        expected = self.items[self.index][1]
        if value.numerator == expected:
            self.correct = self.correct + 1
            return self.advance("Correct.", 1.0 / len(self.items))
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value.numerator > expected else 'low'}."
        if self.attempts >= ATTEMPTS:
            return self.advance(f"{note} No credit for this part; it was {expected}.", 0.0)
        obs = f"{note} {ATTEMPTS - self.attempts} try left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index, "correct": self.correct}

    def privileged_hint(self):
        if self.done or not self.items:
            return "Count the complement when 'at least' appears."
        return f"{self.items[self.index][2]} Earlier answers can be reused."

    def reference_action(self):
        if self.done or not self.items:
            return "\\boxed{0}"
        return f"\\boxed{{{self.items[self.index][1]}}}"
