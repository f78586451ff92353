# expect: accepted
"""Guess a secret number from 1 to 100 with higher/lower feedback."""

ENV_SPEC = {
    "name": "SteadySecret",
    "domain": "games",
    "description": "Guess a secret number from 1 to 100; after each guess you hear higher or lower. Seven guesses.",
    "reward_range": [0.0, 1.0],
    "max_turns": 7,
    "difficulty": {"top": {"min": 50, "max": 100, "default": 100, "description": "largest secret"}},
    "grounding": "Binary search: halving the interval finds a number from 1 to 100 in seven guesses.",
    "tags": ["guessing", "search"],
}


class SteadySecret:
    def __init__(self, top=100):
        self.top = top
        self.secret = 1

    def reset(self, rng, options):
        self.secret = rng.randint(1, self.top)
        return f"I picked a number from 1 to {self.top}. Guess it (reply with the number).", {}

    def step(self, action):
        text = action.strip()
        if not text.isdigit():
            return "Reply with a whole number.", 0.0, False, False, {"format_error": "expected a number"}
        guess = int(text)
        if guess == self.secret:
            return "Correct!", 1.0, True, False, {"success": True}
        if guess < self.secret:
            note = "Higher."
        else:
            note = "Lower."
        return note, 0.0, False, False, {}

    def privileged_hint(self):
        return "Halve the interval with every guess."

    def reference_action(self):
        return str(self.secret)
