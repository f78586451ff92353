"""Run the Euclidean algorithm by hand: each remainder in turn, then a Bezout coefficient."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "EuclidRemainders",
    "domain": "math",
    "description": (
        "Compute gcd(a, b) by the Euclidean algorithm, giving each successive remainder per turn, then the "
        "coefficient x of a Bezout identity a*x + b*y = gcd with |x| <= b/gcd."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "digits": {"min": 2, "max": 6, "default": 3, "description": "digits of a and b (more division steps)"},
    },
    "grounding": (
        "Euclid's algorithm (Elements VII.1-2): gcd(a, b) = gcd(b, a mod b), ending at remainder 0; the extended "
        "algorithm back-substitutes the quotients to find integers x, y with a x + b y = gcd(a, b) (Bezout)."
    ),
    "tags": ["number-theory", "gcd", "euclid", "bezout", "multi-step"],
}

ATTEMPTS = 3


def extended(a, b):
    """(g, x, y) with a*x + b*y = g = gcd(a, b)."""
    old_r, r = a, b
    old_x, x = 1, 0
    old_y, y = 0, 1
    while r != 0:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_x, x = x, old_x - q * x
        old_y, y = y, old_y - q * y
    return old_r, old_x, old_y


class EuclidRemainders:
    def __init__(self, digits=3):
        self.digits = digits
        self.a = 2
        self.b = 1
        self.remainders = []
        self.gcd = 1
        self.bezout_x = 0
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        low, high = 10 ** (self.digits - 1), 10 ** self.digits - 1
        g = rng.choice([1, 1, 2, 3, 4, 6, 7, 9, 12]) if self.digits > 2 else rng.choice([1, 2, 3])
        a = g * rng.randint(max(2, low // g), max(3, high // g))
        b = g * rng.randint(max(1, low // (2 * g)), max(2, a // g - 1))
        while b >= a or b <= 0 or a % b == 0:
            a = g * rng.randint(max(2, low // g), max(3, high // g))
            b = g * rng.randint(max(1, low // (2 * g)), max(2, a // g - 1))
        self.a, self.b = a, b
        rems = []
        x, y = a, b
        while y != 0:
            x, y = y, x % y
            rems.append(y)
        self.remainders = rems[:-1]
        g, bx, by = extended(a, b)
        self.gcd = g
        self.bezout_x = bx
        self.index = 0
        self.attempts = 0
        self.done = False
        obs = (
            f"Find gcd({a}, {b}) with the Euclidean algorithm. Give each non-zero remainder in order as \\boxed{{r}} "
            f"(first {a} mod {b}), then gcd, then x with {a}*x + {b}*y = gcd and |x| <= {b}/gcd. "
            f"{ATTEMPTS} tries per step.\n{self.question()}"
        )
        return obs, {"step": 0}

    def targets(self):
        return self.remainders + [self.gcd, self.bezout_x]

    def question(self):
        n = len(self.remainders)
        if self.index < n:
            if self.index == 0:
                return f"Step 1: what is {self.a} mod {self.b}?"
            prev2 = self.b if self.index == 1 else self.remainders[self.index - 2]
            prev = self.remainders[self.index - 1]
            return f"Step {self.index + 1}: what is {prev2} mod {prev}?"
        if self.index == n:
            return f"Step {self.index + 1}: what is gcd({self.a}, {self.b})?"
        return f"Step {self.index + 1}: give x with {self.a}*x + {self.b}*y = gcd for some integer y."

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            obs = f"Reply with one integer as \\boxed{{n}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected an integer in \\boxed{}", "step": self.index}
        v = value.numerator
        targets = self.targets()
        expected = targets[self.index]
        last = self.index == len(targets) - 1
        if last:
            ok = (self.gcd - self.a * v) % self.b == 0 and abs(v) * self.gcd <= self.b
        else:
            ok = v == expected
        if ok:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(targets)
            if self.index == len(targets):
                self.done = True
                return "Correct. Identity verified.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        if last:
            rest = self.gcd - self.a * v
            note = f"x = {safe_echo(given)} fails: {self.gcd} - {self.a}*x = {rest} is not a multiple of {self.b}"
            if rest % self.b == 0:
                note = f"x = {safe_echo(given)} works but is not the small solution (|x| <= {self.b}/gcd)"
        else:
            note = f"{safe_echo(given)} is too {'high' if v > expected else 'low'}"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {expected}.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        if self.index < len(self.remainders):
            return "Each remainder is the previous divisor reduced modulo the previous remainder."
        if self.index == len(self.remainders):
            return "The gcd is the last non-zero remainder."
        return "Back-substitute: write each remainder as a combination of a and b, starting from the first division."

    def reference_action(self):
        targets = self.targets()
        if self.done or self.index >= len(targets):
            return "\\boxed{0}"
        return f"\\boxed{{{targets[self.index]}}}"
