# expect: instantiate
"""Guess a hidden three-digit number; each wrong guess is answered with 'higher' or 'lower'."""

ENV_SPEC = {
    "name": "SecretNumber",
    "domain": "math",
    "description": "Find a hidden number between 100 and 999 with higher/lower feedback; answer as \\boxed{N}.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "difficulty": {"span": {"min": 100, "max": 900, "default": 899}},
    "grounding": "Binary search halves the interval with each comparison.",
}


class SecretNumber:
    def __init__(self, span=899):
        self.span = span
        self.target = 100
        self.low = 100
        self.high = 999

    def reset(self, rng, options):
        while True:
            self.span = self.span + 1
        self.low, self.high = 100, 100 + self.span
        self.target = rng.randint(self.low, self.high)
        return f"I picked a number from {self.low} to {self.high}. Guess it as \\boxed{{N}}.", {}

    def _parse(self, action):
        text = action.strip()
        if text.startswith("\\boxed{") and text.endswith("}") and text[7:-1].isdigit():
            return int(text[7:-1])
        return None

    def step(self, action):
        guess = self._parse(action)
        if guess is None:
            return "Answer as \\boxed{N}.", 0.0, False, False, {"format_error": "expected \\boxed{N}"}
        if guess == self.target:
            return "Correct!", 1.0, True, False, {"success": True}
        if guess < self.target:
            self.low = max(self.low, guess + 1)
            return f"Higher than {guess}.", 0.0, False, False, {}
        self.high = min(self.high, guess - 1)
        return f"Lower than {guess}.", 0.0, False, False, {}

    def privileged_hint(self):
        parity = "odd" if self.target % 2 else "even"
        return f"The number is {parity}; halve the interval each time."

    def reference_action(self):
        return f"\\boxed{{{self.target}}}"
