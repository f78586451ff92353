# class: nondeterministic (gate corpus)
# expect: determinism
# twin: caesar_decode
# flaw: a module-level counter changes the shift from one reset to the next
"""Decrypt a Caesar-shifted word; the shift is unknown and each wrong try is answered with letter matches."""

ENV_SPEC = {
    "name": "CaesarDecode",
    "domain": "games",
    "description": "A word was encrypted with a Caesar shift; reply with the plain word. Four tries.",
    "reward_range": [0.0, 1.0],
    "max_turns": 4,
    "difficulty": {"max_shift": {"min": 3, "max": 25, "default": 25, "description": "largest shift used"}},
    "grounding": "The Caesar cipher (Suetonius, Life of Julius Caesar 56): each letter moves a fixed number of places.",
    "tags": ["cipher", "cryptography", "words"],
}

RESETS = {"count": 0}

WORDS = ["legion", "senate", "forum", "consul", "aqueduct", "gladius", "tribune", "province", "caesar", "rubicon",
         "praetor", "centurion", "augustus", "capitol", "republic", "triumph", "basilica", "emperor"]


class CaesarDecode:
    def __init__(self, max_shift=25):
        self.max_shift = max_shift
        self.word = "legion"
        self.shift = 3
        self.tries = 4

    def encode(self, text, shift):
        return "".join(chr((ord(ch) - 97 + shift) % 26 + 97) for ch in text)

    def reset(self, rng, options):
        self.word = rng.choice(WORDS)
        RESETS["count"] = RESETS["count"] + 1
        self.shift = (rng.randint(1, self.max_shift) + RESETS["count"]) % 25 + 1
        self.tries = 4
        cipher = self.encode(self.word, self.shift).upper()
        return f"Ciphertext: {cipher}\nReply with the decrypted word (4 tries).", {}

    def step(self, action):
        guess = action.strip().lower().strip(".!\"'")
        if not guess.isalpha() or len(guess) > 30:
            return "Reply with one word.", 0.0, False, False, {"format_error": "expected one word of letters"}
        self.tries = self.tries - 1
        if guess == self.word:
            return "Decrypted!", 1.0, True, False, {"success": True}
        same = sum(1 for a, b in zip(guess, self.word) if a == b)
        if self.tries == 0:
            return "No tries left.", 0.0, True, False, {}
        cipher = self.encode(self.word, self.shift).upper()
        return (f"Wrong: {same} letters match in place. Ciphertext: {cipher}. {self.tries} tries left."), 0.0, \
            False, False, {}

    def privileged_hint(self):
        return f"Every letter was moved {self.shift} places forward in the alphabet."

    def reference_action(self):
        return self.word
