"""Modular exponentiation by repeated squaring, one intermediate residue per turn."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "ModularPowerSteps",
    "domain": "math",
    "description": (
        "Compute a^e mod p by square-and-multiply: first the successive squares a^(2^k) mod p, one per turn, "
        "then the final residue. A wrong residue is rejected with a consistency clue."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "bits": {"min": 3, "max": 9, "default": 5, "description": "bit length of the exponent (more squarings)"},
        "modulus_digits": {"min": 2, "max": 4, "default": 3, "description": "size of the prime modulus"},
    },
    "grounding": (
        "Modular arithmetic: binary (square-and-multiply) exponentiation as used in RSA and Diffie-Hellman; "
        "a^(2^(k+1)) = (a^(2^k))^2 mod p, and a^e is the product of the squares for the one-bits of e. "
        "For a prime p not dividing a, no power of a is 0 mod p (Fermat's little theorem: a^(p-1) = 1 mod p)."
    ),
    "tags": ["number-theory", "modular-arithmetic", "exponentiation", "multi-step"],
}

ATTEMPTS = 3


def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d = d + 1
    return True


class ModularPowerSteps:
    def __init__(self, bits=5, modulus_digits=3):
        self.bits = bits
        self.modulus_digits = modulus_digits
        self.base = 2
        self.exponent = 1
        self.modulus = 3
        self.targets = []
        self.labels = []
        self.index = 0
        self.attempts = 0
        self.done = False

    def reset(self, rng, options):
        low = 10 ** (self.modulus_digits - 1) + 1
        high = 10 ** self.modulus_digits - 1
        p = rng.randint(low, high)
        while not is_prime(p):
            p = rng.randint(low, high)
        self.modulus = p
        self.base = rng.randint(2, p - 2)
        top = 1 << (self.bits - 1)
        self.exponent = top + rng.randint(1, top - 1) if top > 1 else 3
        squares = [self.base % p]
        for _ in range(self.bits - 1):
            squares.append(squares[-1] * squares[-1] % p)
        self.targets = squares[1:] + [pow(self.base, self.exponent, p)]
        self.labels = [f"{self.base}^{1 << (k + 1)} mod {p}" for k in range(self.bits - 1)]
        self.labels.append(f"{self.base}^{self.exponent} mod {p}")
        self.index = 0
        self.attempts = 0
        self.done = False
        binary = f"{self.exponent:b}"
        obs = (
            f"Compute {self.base}^{self.exponent} mod {p} (the exponent is {binary} in binary) by repeated squaring. "
            f"Give each requested residue in [0, {p - 1}] as \\boxed{{r}}; {ATTEMPTS} tries each.\n{self.question()}"
        )
        return obs, {"step": 0}

    def question(self):
        return f"Step {self.index + 1}/{len(self.targets)}: what is {self.labels[self.index]}?"

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            obs = f"Reply with one integer residue as \\boxed{{r}}.\n{self.question()}"
            return obs, 0.0, False, False, {"format_error": "expected an integer in \\boxed{}", "step": self.index}
        r = value.numerator
        expected = self.targets[self.index]
        if r == expected:
            self.index = self.index + 1
            self.attempts = 0
            reward = 1.0 / len(self.targets)
            if self.index == len(self.targets):
                self.done = True
                return "Correct. Done.", reward, True, False, {"success": True, "step": self.index}
            return f"Correct.\n{self.question()}", reward, False, False, {"success": False, "step": self.index}
        self.attempts = self.attempts + 1
        if r < 0 or r >= self.modulus:
            note = f"{safe_echo(given)} is not reduced: a residue lies in [0, {self.modulus - 1}]"
        elif r % self.modulus == 0:
            note = f"{r} cannot be right: {self.modulus} is prime and does not divide {self.base}, so no power is 0"
        elif self.index > 0 and self.index < len(self.targets) - 1:
            prev = self.targets[self.index - 1]
            note = f"{r} is wrong: square the previous residue {prev} and reduce mod {self.modulus}"
        else:
            note = f"{r} is wrong"
        if self.attempts >= ATTEMPTS:
            self.done = True
            return f"{note}. Out of tries; it was {expected}.", 0.0, True, False, {"success": False, "step": self.index}
        obs = f"{note}. {ATTEMPTS - self.attempts} tries left.\n{self.question()}"
        return obs, 0.0, False, False, {"success": False, "step": self.index}

    def privileged_hint(self):
        return (
            "Square the previous residue and reduce it before squaring again; for the final residue multiply "
            "together the squares that match the one-bits of the exponent, reducing after every product."
        )

    def reference_action(self):
        if self.done or not self.targets:
            return "\\boxed{0}"
        return f"\\boxed{{{self.targets[self.index]}}}"
