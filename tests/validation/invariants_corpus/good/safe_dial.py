# expect: accepted
"""Crack a safe: guess a digit combination; each wrong try tells you, digit by digit, whether to go higher or lower."""

from spade_domains.games.verify import clean_move, safe_echo

ENV_SPEC = {
    "name": "SafeDial",
    "domain": "games",
    "description": (
        "Open a safe with a hidden combination of digits. After each wrong try the safe's display says, for every "
        "dial, whether the right digit is higher, lower or correct. Open it before the tries run out."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {
        "dials": {"min": 2, "max": 6, "default": 3, "description": "digits in the combination"},
        "tries": {"min": 4, "max": 10, "default": 6, "description": "tries before the safe locks for good"},
    },
    "grounding": (
        "Binary search: with higher/lower feedback each dial's range halves per try, so a digit 0-9 is found in at "
        "most four tries and all dials are searched in parallel."
    ),
    "tags": ["deduction", "binary-search", "feedback", "puzzle"],
}


class SafeDial:
    def __init__(self, dials=3, tries=6):
        self.dials = dials
        self.tries = tries
        self.rng = None
        self.code = []
        self.used = 0
        self.log = []
        self.done = False

    def reset(self, rng, options):
        self.rng = rng
        self.used = 0
        self.log = []
        self.done = False
        self.rearm()
        obs = (
            f"A safe with {self.dials} dials, each 0-9. You have {self.tries} tries. Reply with {self.dials} digits "
            f"(e.g. '{'5' * self.dials}'). After a wrong try the display shows, per dial, '+' (the right digit is "
            f"higher), '-' (lower) or '=' (correct)."
        )
        return obs, {}

    def rearm(self):
        """Set the dials for a fresh attempt."""
        self.code = [self.rng.randint(0, 9) for _ in range(self.dials)]

    def parse(self, action):
        move = clean_move(action, 40)
        if move is None:
            return None
        digits = move.replace(" ", "").replace("-", "")
        if len(digits) != self.dials or not digits.isdigit():
            return None
        return [int(ch) for ch in digits]

    def step(self, action):
        if self.done:
            raise RuntimeError("game over; call reset")
        guess = self.parse(action)
        if guess is None:
            obs = f"Invalid try {safe_echo(action)!r}: reply with exactly {self.dials} digits."
            return obs, 0.0, False, False, {"format_error": f"expected {self.dials} digits"}
        self.used = self.used + 1
        if guess == self.code:
            self.done = True
            return f"Click. The safe opens after {self.used} tries!", 1.0, True, False, {"success": True}
        display = "".join("=" if g == c else ("+" if c > g else "-") for g, c in zip(guess, self.code))
        self.log.append(f"{''.join(str(d) for d in guess)} -> {display}")
        if self.used >= self.tries:
            self.done = True
            shown = "".join(str(d) for d in self.code)
            return f"{display}. The safe locks for good (it was {shown}).", 0.0, True, False, {"success": False}
        obs = f"Display: {display}. Tries left: {self.tries - self.used}.\nSo far:\n" + "\n".join(self.log)
        return obs, 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return ("Search every dial at once: start at 5s, then move each dial halfway toward the end of its remaining "
                "range that the display points to; keep dials marked '=' fixed.")

    def reference_action(self):
        return "".join(str(d) for d in self.code) if self.code else "0" * self.dials
