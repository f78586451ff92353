# class: nondeterministic (gate corpus)
# expect: determinism
# twin: bisection
# flaw: module-level history shifts the secret
"""Find a hidden number from 1 to 1000 with higher/lower feedback and a fixed budget of guesses."""

import math

PLAYED = []

ENV_SPEC = {
    "name": "BisectionGuess",
    "domain": "math",
    "description": (
        "A number from 1 to 1000 is hidden. Each guess, written as \\boxed{n}, is answered with 'higher' or "
        "'lower'. Ten guesses are allowed; the episode ends when they are used up."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "difficulty": {"guesses": {"min": 10, "max": 14, "default": 10, "description": "guesses allowed"}},
    "grounding": "Binary search halves the candidate interval with every comparison: ceil(log2 1000) = 10 guesses.",
    "tags": ["search", "bisection", "feedback"],
}


class BisectionGuess:
    def __init__(self, guesses=10):
        self.budget = guesses
        self.secret = 1
        self.low = 1
        self.high = 1000
        self.left = guesses

    def reset(self, rng, options):
        PLAYED.append(1)
        self.secret = (rng.randint(1, 1000) + len(PLAYED)) % 1000 + 1
        self.low, self.high = 1, 1000
        self.left = self.budget
        obs = (f"I am thinking of a whole number from 1 to 1000. You have {self.budget} guesses. "
               "Reply with one guess as \\boxed{n}.")
        return obs, {"guesses_left": self.left}

    def _parse(self, action):
        text = action.strip()
        if text.startswith("\\boxed{") and text.endswith("}"):
            text = text[7:-1].strip()
        try:
            value = float(text)
        except ValueError:
            return None
        if not math.isfinite(value) or value != int(value):
            return None
        return int(value)

    def step(self, action):
        guess = self._parse(action)
        if guess is None:
            return ("Reply with one whole number as \\boxed{n}.", 0.0, False, False,
                    {"format_error": "expected a whole number in \\boxed{}", "guesses_left": self.left})
        self.left = self.left - 1
        if guess == self.secret:
            return f"Correct, the number is {guess}.", 1.0, True, False, {"success": True, "guesses_left": self.left}
        if guess < self.secret:
            self.low = max(self.low, guess + 1)
            word = "higher"
        else:
            self.high = min(self.high, guess - 1)
            word = "lower"
        if self.left == 0:
            return f"{guess} is wrong and no guesses are left.", 0.0, True, False, {"guesses_left": 0}
        return (f"The number is {word} than {guess}. {self.left} guesses left.", 0.0, False, False,
                {"guesses_left": self.left})

    def privileged_hint(self):
        parity = "odd" if self.secret % 2 else "even"
        return f"The number is {parity}. Always guess the middle of the interval that is still possible."

    def reference_action(self):
        return f"\\boxed{{{(self.low + self.high) // 2}}}"
