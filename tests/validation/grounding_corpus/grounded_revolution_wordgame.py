# good (games): a word-deduction game whose secret words are the document's names; each guess gets letter feedback
"""Guess a word of the document."""

ENV_SPEC = {
    "name": "RevolutionWordle",
    "domain": "games",
    "description": "Deduce a secret word letter by letter from position feedback.",
    "reward_range": [0.0, 1.0],
    "max_turns": 6,
    "difficulty": {"guesses": {"min": 4, "max": 6, "default": 6}},
    "grounding": "Secret words are names and terms of the document.",
}

WORDS = ["bastille", "versailles", "brumaire", "directory", "republic", "varennes", "thermidor", "consulate",
         "robespierre", "feudalism"]


class RevolutionWordle:
    def __init__(self, guesses=6):
        self.guesses = guesses
        self.secret = WORDS[0]
        self.used = 0

    def reset(self, rng, options):
        self.secret = WORDS[rng.randrange(len(WORDS))]
        self.used = 0
        return (f"Guess the secret word ({len(self.secret)} letters, a term of the French Revolution). "
                f"You have {self.guesses} guesses. Feedback: G right place, Y elsewhere in the word, - absent."), {}

    def step(self, action):
        guess = action.strip().lower()
        if not guess.isalpha() or len(guess) != len(self.secret):
            return (f"Write one word of {len(self.secret)} letters.", 0.0, False, False,
                    {"success": False, "format_error": "wrong length"})
        self.used = self.used + 1
        if guess == self.secret:
            return "Solved.", 1.0, True, False, {"success": True}
        marks = "".join("G" if g == s else ("Y" if g in self.secret else "-") for g, s in zip(guess, self.secret))
        done = self.used >= self.guesses
        return f"{guess}: {marks}", 0.0, done, False, {"success": False}

    def privileged_hint(self):
        return f"The word contains the letter {self.secret[len(self.secret) // 2]!r}."

    def reference_action(self):
        return self.secret
