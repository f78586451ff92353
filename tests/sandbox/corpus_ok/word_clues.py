"""A Wordle-like word game: Counter, comprehensions, try/except, zip/enumerate, f-strings."""

from collections import Counter
from string import ascii_lowercase

ENV_SPEC = {
    "name": "WordClues",
    "domain": "games",
    "description": "Find the five-letter word; each guess is scored letter by letter.",
    "reward_range": [0, 1],
    "max_turns": 6,
    "tags": ["words"],
}

WORDS = ["crane", "slate", "pious", "moved", "habit", "lemon", "quart", "zesty"]


class InvalidGuess(ValueError):
    pass


class WordClues:
    def __init__(self):
        self.answer = ""
        self.tries = 0
        self.known = {}

    @staticmethod
    def score(guess, answer):
        marks = ["-"] * len(guess)
        remaining = Counter(a for g, a in zip(guess, answer) if g != a)
        for i, (g, a) in enumerate(zip(guess, answer)):
            if g == a:
                marks[i] = "G"
            elif remaining[g] > 0:
                marks[i] = "Y"
                remaining[g] -= 1
        return "".join(marks)

    def _check(self, guess):
        if len(guess) != 5 or any(ch not in ascii_lowercase for ch in guess):
            raise InvalidGuess(f"{guess!r} is not a five-letter lowercase word")
        return guess

    def reset(self, rng, options):
        self.answer = rng.choice(WORDS)
        self.tries = 0
        self.known = {}
        return "Guess the five-letter word.", {}

    def step(self, action):
        self.tries += 1
        try:
            guess = self._check(action.strip().lower())
        except InvalidGuess as exc:
            return str(exc), 0, False, False, {"format_error": str(exc)}
        marks = self.score(guess, self.answer)
        for i, (ch, m) in enumerate(zip(guess, marks)):
            if m == "G":
                self.known[i] = ch
        won = marks == "GGGGG"
        return f"{guess} -> {marks}", 1 if won else 0, won, False, {"success": won, "marks": marks}

    def privileged_hint(self):
        return f"The word contains the letter {sorted(set(self.answer))[0]!r}."

    def reference_action(self):
        candidates = [w for w in WORDS if all(w[i] == ch for i, ch in self.known.items())]
        return candidates[0] if candidates else WORDS[0]
