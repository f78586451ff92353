# expect: accepted
"""Find, among offered words, the one that a mirrored word spells."""

ENV_SPEC = {
    "name": "MirrorWordChoice",
    "domain": "games",
    "description": "A word is shown spelled backwards; reply with the offered word it spells.",
    "reward_range": [0.0, 1.0],
    "max_turns": 1,
    "difficulty": {"choices": {"min": 3, "max": 6, "default": 5, "description": "words offered"}},
    "grounding": "Word play: reading a word from right to left (a mirror word).",
    "tags": ["words", "multiple-choice"],
}

WORDS = ["melon", "lemon", "solemn", "almond", "salmon", "walnut", "orange", "garden", "danger", "ranged", "silent",
         "listen", "tinsel", "enlist", "stone", "notes", "onset", "tones", "pearl", "paler", "plate", "petal",
         "leapt", "ocean", "canoe", "rescue", "secure", "recuse", "master", "stream", "tamers", "lapse", "sepal"]


class MirrorWordChoice:
    def __init__(self, choices=5):
        self.count = choices
        self.word = "melon"
        self.choices = []

    def reset(self, rng, options):
        self.choices = rng.sample(WORDS, self.count)
        self.word = rng.choice(self.choices)
        mirrored = self.word[::-1]
        return (f"The word '{mirrored}' is spelled backwards. Which word does it spell? Choices: "
                f"{', '.join(self.choices)}\nReply with the word."), {}

    def step(self, action):
        guess = action.strip().lower().strip(".!\"'")
        if not guess.isalpha() or len(guess) > 20:
            return "Reply with one word.", 0.0, True, False, {"format_error": "expected one word"}
        if guess == self.word:
            return "Correct!", 1.0, True, False, {"success": True}
        return "That is not the word it spells.", 0.0, True, False, {}

    def privileged_hint(self):
        return "Read the shown word from its last letter to its first."

    def reference_action(self):
        return self.word
