"""Extend an integer sequence term by term; a wrong term is answered with too high / too low."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "SequenceNextTerm",
    "domain": "math",
    "description": (
        "Given the first terms of an integer sequence (arithmetic, geometric, polynomial, Fibonacci-like, linear "
        "recurrence or interleaved), predict the next terms one per turn with higher/lower feedback."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 24,
    "players": 1,
    "difficulty": {
        "level": {"min": 1, "max": 4, "default": 2, "description": "rule families allowed (1 linear ... 4 cubic)"},
        "terms": {"min": 2, "max": 4, "default": 3, "description": "terms to predict"},
    },
    "grounding": (
        "Integer sequences as catalogued in the OEIS: arithmetic and geometric progressions, polynomial "
        "sequences detected by the method of finite differences (a degree-d polynomial has constant d-th "
        "differences), Fibonacci-type and second-order linear recurrences x(n) = p x(n-1) + q x(n-2)."
    ),
    "tags": ["sequences", "finite-differences", "recurrences", "pattern"],
}

ATTEMPTS = 3
SHOWN = 6


def nonzero(rng, low, high):
    value = 0
    while value == 0:
        value = rng.randint(low, high)
    return value


def arithmetic(rng, n):
    a, d = rng.randint(-20, 40), nonzero(rng, -9, 12)
    return [a + d * k for k in range(n)], "It is arithmetic: consecutive terms differ by a constant."


def geometric(rng, n):
    a, r = nonzero(rng, -5, 9), rng.choice([-3, -2, 2, 3, 4])
    return [a * r ** k for k in range(n)], "It is geometric: each term is a fixed multiple of the previous one."


def quadratic(rng, n):
    a, b, c = nonzero(rng, -4, 5), rng.randint(-9, 9), rng.randint(-20, 20)
    return [a * k * k + b * k + c for k in range(n)], "The second differences are constant."


def fibonacci_like(rng, n):
    seq = [rng.randint(1, 9), rng.randint(1, 12)]
    while len(seq) < n:
        seq.append(seq[-1] + seq[-2])
    return seq, "Each term is the sum of the two before it."


def recurrence(rng, n):
    p, q = rng.choice([2, 3, -1, 1]), rng.choice([-2, -1, 1, 2, 3])
    if p == 1 and q == 1:
        q = 2
    seq = [rng.randint(1, 6), rng.randint(-5, 9)]
    while len(seq) < n:
        seq.append(p * seq[-1] + q * seq[-2])
    return seq, "Each term is a fixed combination of the two terms before it."


def interleaved(rng, n):
    a, d = rng.randint(-10, 20), nonzero(rng, -6, 8)
    b, e = nonzero(rng, -10, 20), rng.choice([-2, 2, 3])
    seq = []
    for k in range(n):
        seq.append(a + d * (k // 2) if k % 2 == 0 else b * e ** (k // 2))
    return seq, "Terms in odd and even positions follow two separate rules."


def cubic(rng, n):
    a, b, c, d = nonzero(rng, -3, 3), rng.randint(-5, 5), rng.randint(-9, 9), rng.randint(-20, 20)
    return [a * k ** 3 + b * k * k + c * k + d for k in range(n)], "The third differences are constant."


FAMILIES = [[arithmetic, geometric], [quadratic, fibonacci_like], [recurrence, interleaved], [cubic]]


class SequenceNextTerm:
    def __init__(self, level=2, terms=3):
        self.level = level
        self.n_terms = terms
        self.sequence = []
        self.rule = ""
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        pool = []
        for group in FAMILIES[: self.level]:
            pool.extend(group)
        make = rng.choice(pool)
        seq, rule = make(rng, SHOWN + self.n_terms)
        while len(set(seq)) < 3 or not any(seq[SHOWN:]):
            seq, rule = make(rng, SHOWN + self.n_terms)
        self.sequence = seq
        self.rule = rule
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"Sequence: {', '.join(str(x) for x in seq[:SHOWN])}, ...\nPredict the next {self.n_terms} terms, one "
            f"per turn, as \\boxed{{n}}; {ATTEMPTS} tries each.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        known = ", ".join(str(x) for x in self.sequence[: SHOWN + self.index])
        return f"Term {SHOWN + self.index + 1}? (known: {known})"

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            obs = f"Reply with one integer as \\boxed{{n}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected an integer in \\boxed{}", "step": self.index}
        expected = self.sequence[SHOWN + self.index]
        if value.numerator == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / self.n_terms
            if self.index == self.n_terms:
                self.done = True
                return "Correct. Sequence extended.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        note = f"{safe_echo(given)} is too {'high' if value.numerator > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {expected}.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        return f"{self.rule} Check your rule against every known term before answering."

    def reference_action(self):
        if self.done or not self.sequence:
            return "\\boxed{0}"
        return f"\\boxed{{{self.sequence[SHOWN + self.index]}}}"
