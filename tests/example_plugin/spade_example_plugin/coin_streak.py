"""Guess a hidden sequence of coin flips one at a time; a wrong guess reveals that flip."""

ENV_SPEC = {
    "name": "ExampleCoinStreak",
    "domain": "games",
    "description": "Guess a hidden sequence of coin flips (H or T), one per turn.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "difficulty": {"length": {"min": 2, "max": 8, "default": 4}},
    "grounding": "Independent fair coin flips.",
    "tags": ["example", "third-party"],
}


class CoinStreak:
    def __init__(self, length=4):
        self.length = length
        self.flips = []
        self.position = 0

    def reset(self, rng, options):
        self.flips = [rng.choice("HT") for _ in range(self.length)]
        self.position = 0
        return f"Guess flip 1 of {self.length}: H or T.", {}

    def step(self, action):
        guess = action.strip().upper()
        if guess not in ("H", "T"):
            return "Answer H or T.", 0.0, False, False, {"format_error": "expected H or T"}
        actual = self.flips[self.position]
        if guess != actual:
            return f"Wrong: flip {self.position + 1} was {actual}. Start again from flip 1.", 0.0, False, False, {}
        self.position += 1
        if self.position == self.length:
            return "All flips guessed.", 1.0, True, False, {"success": True}
        return f"Right. Guess flip {self.position + 1}.", 0.0, False, False, {}

    def privileged_hint(self):
        return f"There are {self.flips.count('H')} heads in the sequence."

    def reference_action(self):
        return self.flips[self.position]
