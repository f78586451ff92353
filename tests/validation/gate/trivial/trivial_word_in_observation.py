# expect: baselines
# twin: anagram
# flaw: the observation names the word in its opening sentence
"""Unscramble a word about the weather, with three tries and letter-position feedback."""

ENV_SPEC = {
    "name": "WeatherAnagram",
    "domain": "games",
    "description": (
        "The letters of a weather word are shuffled. Reply with the word; after a wrong try you learn how many "
        "letters are already in the right place. Three tries."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 3,
    "difficulty": {"min_length": {"min": 5, "max": 8, "default": 6, "description": "shortest word used"}},
    "grounding": "Meteorology vocabulary: clouds, precipitation and wind (WMO International Cloud Atlas terms).",
    "tags": ["words", "anagram", "vocabulary"],
}

WORDS = [
    ("thunder", "a sound"), ("drizzle", "light rain"), ("monsoon", "a seasonal wind"), ("tornado", "a vortex"),
    ("blizzard", "a snowstorm"), ("cumulus", "a cloud"), ("stratus", "a cloud"), ("typhoon", "a storm"),
    ("humidity", "a measure of water vapour"), ("rainbow", "an optical effect"), ("cyclone", "a storm"),
    ("squall", "a sudden wind"), ("sleet", "frozen rain"), ("breeze", "a light wind"), ("frost", "ice on surfaces"),
    ("hailstone", "a ball of ice"), ("nimbus", "a cloud"), ("tempest", "a storm"), ("gusty", "wind behaviour"),
    ("overcast", "a sky condition"), ("dewpoint", "a temperature"), ("isobar", "a line on a chart"),
]


class WeatherAnagram:
    def __init__(self, min_length=6):
        self.min_length = min_length
        self.word = "thunder"
        self.topic = "a sound"
        self.letters = "thunder"
        self.tries = 3

    def reset(self, rng, options):
        pool = [w for w in WORDS if len(w[0]) >= self.min_length]
        self.word, self.topic = rng.choice(pool)
        letters = list(self.word)
        while "".join(letters) == self.word:
            rng.shuffle(letters)
        self.letters = " ".join(letters).upper()
        self.tries = 3
        obs = (f"Today's forecast mentions {self.word.capitalize()} again. Unscramble these letters into a weather "
               f"word: {self.letters}. Reply with the word (3 tries).")
        return obs, {}

    def step(self, action):
        guess = action.strip().lower().strip(".!\"'")
        if not guess.isalpha() or len(guess) > 20:
            return ("Reply with a single word made of letters.", 0.0, False, False,
                    {"format_error": "expected one word"})
        self.tries = self.tries - 1
        if guess == self.word:
            return "Correct!", 1.0, True, False, {"success": True}
        placed = sum(1 for a, b in zip(guess, self.word) if a == b)
        if self.tries == 0:
            return f"No tries left; the word was {self.word}.", 0.0, True, False, {}
        return (f"Not it. {placed} letters of your word are in the right place. {self.tries} tries left. "
                f"Letters: {self.letters}."), 0.0, False, False, {}

    def privileged_hint(self):
        return f"The word names {self.topic}; it starts with the letter {self.word[0].upper()}."

    def reference_action(self):
        return self.word
