# flaw (document without proper nouns): a higher/lower number hunt dressed in pasted pie sentences
"""Guess the weight."""

ENV_SPEC = {
    "name": "PieWeightHunt",
    "domain": "games",
    "description": "Find a secret weight with higher/lower feedback.",
    "reward_range": [0.0, 1.0],
    "max_turns": 7,
    "difficulty": {"top": {"min": 50, "max": 100, "default": 100}},
    "grounding": "Pies.",
}

INTRO = ("A pie is a baked dish with a pastry casing that holds a sweet or savoury filling. Blind baking, where the "
         "empty case is baked under weights for 15 minutes, keeps the base crisp under wet fillings.")


class PieWeightHunt:
    def __init__(self, top=100):
        self.top = top
        self.secret = 1
        self.low = 1
        self.high = top
        self.used = 0

    def reset(self, rng, options):
        self.secret = rng.randint(1, self.top)
        self.low, self.high, self.used = 1, self.top, 0
        return f"{INTRO}\nThe secret weight is a whole number from 1 to {self.top}. Guess it.", {}

    def step(self, action):
        text = action.strip()
        if not text.isdigit():
            return "Reply with a whole number.", 0.0, False, False, {"success": False, "format_error": "not a number"}
        guess = int(text)
        self.used = self.used + 1
        if guess == self.secret:
            return "Found it.", 1.0, True, False, {"success": True}
        if guess < self.secret:
            self.low = max(self.low, guess + 1)
            word = "higher"
        else:
            self.high = min(self.high, guess - 1)
            word = "lower"
        return f"{INTRO}\nGo {word}.", 0.0, self.used >= 7, False, {"success": False}

    def privileged_hint(self):
        return "Halve the remaining interval with every guess."

    def reference_action(self):
        return str((self.low + self.high) // 2)
