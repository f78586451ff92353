# shape: a code-breaking game with feedback after each guess (bulls and cows on four distinct digits)
"""Guess a secret of four distinct digits; each guess is answered with bulls (right digit, right place) and cows
(right digit, wrong place). The reference plays the first code consistent with every answer so far."""

from itertools import permutations

ENV_SPEC = {
    "name": "BullsAndCows",
    "domain": "games",
    "description": "Find a secret of four distinct digits from bulls (right place) and cows (wrong place) feedback "
                   "within a guess budget.",
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {"guesses": {"min": 8, "max": 12, "default": 10, "description": "guesses allowed"}},
    "grounding": "Bulls and cows, the pencil-and-paper ancestor of Mastermind: every secret of 5040 is found in at "
                 "most seven guesses by guessing consistently with the feedback.",
    "tags": ["deduction", "code-breaking", "feedback", "digits"],
}

CODES = ["".join(p) for p in permutations("0123456789", 4)]


def feedback(guess, secret):
    bulls = sum(1 for a, b in zip(guess, secret) if a == b)
    return bulls, sum(1 for a in guess if a in secret) - bulls


class BullsAndCows:
    def __init__(self, guesses=10):
        self.guesses = guesses
        self.secret = CODES[0]
        self.fitting = []
        self.left = guesses
        self.done = False

    def reset(self, rng, options):
        self.secret = rng.choice(CODES)
        self.fitting = list(CODES)
        self.left = self.guesses
        self.done = False
        return (f"I hold a secret of four different digits (0-9; it may start with 0). Guess it: reply with four "
                f"different digits, e.g. 0473. I answer with bulls (right digit, right place) and cows (right "
                f"digit, wrong place). You have {self.left} guesses."), {}

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        guess = action.strip().replace(" ", "").rstrip(".")
        if len(guess) != 4 or not guess.isdigit() or len(set(guess)) != 4:
            info = {"success": False, "format_error": "expected four different digits", "action_is_valid": False}
            return "Reply with four different digits, e.g. 0473.", 0.0, False, False, info
        self.left = self.left - 1
        bulls, cows = feedback(guess, self.secret)
        self.fitting = [c for c in self.fitting if feedback(guess, c) == (bulls, cows)]
        if bulls == 4:
            self.done = True
            return "Four bulls: you found it.", 1.0, True, False, {"success": True}
        if self.left == 0:
            self.done = True
            return f"{bulls} bulls, {cows} cows. No guesses left.", 0.0, True, False, {"success": False}
        return f"{guess}: {bulls} bulls, {cows} cows. {self.left} guesses left.", 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return (f"{len(self.fitting)} codes still fit every answer so far; guess one of them, preferring "
                "digits you have not tried yet.")

    def reference_action(self):
        return self.fitting[0]
