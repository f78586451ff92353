"""Find a secret integer from higher/lower and greatest-common-divisor feedback."""

from spade_domains.math.verify import extract_answer, safe_echo, to_number

ENV_SPEC = {
    "name": "SecretNumberClues",
    "domain": "math",
    "description": (
        "Guess a secret integer in [2, N]. Each guess is answered with higher/lower and gcd(guess, secret); "
        "a limited number of guesses. N is drawn between 10^digits / 2 and 10^digits - 1."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "digits": {"min": 2, "max": 6, "default": 3, "description": "N has this many digits: a bigger search space"},
    },
    "grounding": (
        "Elementary number theory and search: the greatest common divisor (Euclid's algorithm) reveals shared "
        "prime factors, and bisection halves the interval each guess (ceil(log2 N) guesses suffice)."
    ),
    "tags": ["number-theory", "gcd", "search", "feedback"],
}


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def bits_needed(n):
    count = 0
    while (1 << count) < n:
        count = count + 1
    return count


def smallest_prime_factor(n):
    d = 2
    while d * d <= n:
        if n % d == 0:
            return d
        d = d + 1
    return n


class SecretNumberClues:
    def __init__(self, digits=3):
        self.digits = digits
        self.upper = 10 ** digits - 1
        self.secret = 2
        self.low = 2
        self.high = self.upper
        self.guesses_left = 0
        self.history = []
        self.done = False

    def reset(self, rng, options):
        self.upper = rng.randint(10 ** self.digits // 2, 10 ** self.digits - 1)
        self.secret = rng.randint(2, self.upper)
        self.low = 2
        self.high = self.upper
        self.guesses_left = bits_needed(self.upper - 1) + 1
        self.history = []
        self.done = False
        obs = (
            f"I picked a secret integer between 2 and {self.upper}. Guess it: reply \\boxed{{n}}. After each guess "
            f"you learn whether the secret is higher or lower and the gcd of your guess and the secret. "
            f"You have {self.guesses_left} guesses."
        )
        return obs, {"guesses_left": self.guesses_left}

    def step(self, action):
        given = extract_answer(action)
        value = to_number(given) if given is not None else None
        if value is None or value.denominator != 1:
            obs = f"Reply with one integer guess as \\boxed{{n}} (between 2 and {self.upper})."
            return obs, 0.0, False, False, {"format_error": "expected an integer in \\boxed{}",
                                            "guesses_left": self.guesses_left}
        guess = value.numerator
        if guess < 2 or guess > self.upper:
            obs = f"{safe_echo(given)} is outside 2..{self.upper}; guess again (no guess used)."
            return obs, 0.0, False, False, {"action_is_valid": False, "guesses_left": self.guesses_left}
        self.guesses_left = self.guesses_left - 1
        if guess == self.secret:
            self.done = True
            info = {"success": True, "guesses_left": self.guesses_left}
            return f"{guess} is the secret. Solved!", 1.0, True, False, info
        direction = "higher" if self.secret > guess else "lower"
        if direction == "higher":
            self.low = max(self.low, guess + 1)
        else:
            self.high = min(self.high, guess - 1)
        g = gcd(guess, self.secret)
        self.history.append(f"{guess}: {direction}, gcd {g}")
        if self.guesses_left <= 0:
            self.done = True
            return f"{guess}: the secret is {direction}. Out of guesses; it was {self.secret}.", 0.0, True, False, {
                "success": False, "guesses_left": 0}
        obs = (
            f"{guess}: the secret is {direction}; gcd({guess}, secret) = {g}. {self.guesses_left} guesses left.\n"
            f"History: {'; '.join(self.history)}"
        )
        return obs, 0.0, False, False, {"success": False, "guesses_left": self.guesses_left}

    def privileged_hint(self):
        if self.secret % 2 == 0:
            parity = "The secret is even"
        else:
            parity = "The secret is odd"
        if smallest_prime_factor(self.secret) == self.secret:
            shape = "and it is prime"
        else:
            shape = "and it is composite"
        return f"{parity} {shape}. Bisect the remaining interval; use the gcd to skip guesses that share no factor."

    def reference_action(self):
        if self.done:
            return f"\\boxed{{{self.low}}}"
        return f"\\boxed{{{(self.low + self.high) // 2}}}"
