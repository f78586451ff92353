# shape: a classic game with a legal resign (-1) and a forfeit after three malformed moves in a row (-1)
"""Take-away Nim against a fixed bot: take 1 to 3 stones, whoever takes the last stone wins. Resigning is a legal
move that loses at once; a malformed move earns nothing and the game goes on, but three in a row forfeit."""

ENV_SPEC = {
    "name": "NimResignForfeit",
    "domain": "games",
    "description": "Play take-away Nim (1-3 stones, last stone wins) against a bot; you may resign, and three "
                   "malformed moves in a row forfeit.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 30,
    "difficulty": {"stones": {"min": 9, "max": 40, "default": 25, "description": "largest starting pile"}},
    "grounding": "Bouton's analysis of subtraction Nim: leave a multiple of four stones to win.",
    "tags": ["game", "nim", "resign", "forfeit"],
}


class NimResignForfeit:
    def __init__(self, stones=25):
        self.stones_max = stones
        self.stones = 0
        self.bad = 0
        self.done = False
        self.seed_offset = 0

    def reset(self, rng, options):
        self.stones = rng.randint(9, self.stones_max)
        while self.stones % 4 == 0:
            self.stones = rng.randint(9, self.stones_max)
        self.seed_offset = rng.randint(0, 2)
        self.bad = 0
        self.done = False
        return self._text("The game starts."), {}

    def _text(self, news):
        return (f"{news} {self.stones} stones are left. Take 1, 2 or 3 (reply with the number), or reply 'resign'. "
                "Three malformed replies in a row forfeit the game.")

    def _bot_take(self):
        if self.stones % 4:
            return self.stones % 4
        return 1 + (self.stones + self.seed_offset) % 3 if self.stones > 3 else self.stones

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        move = action.strip().lower()
        if move == "resign":
            self.done = True
            return "You resigned.", -1.0, True, False, {"success": False, "outcome": "resigned"}
        if move not in ("1", "2", "3") or int(move) > self.stones:
            self.bad = self.bad + 1
            if self.bad >= 3:
                self.done = True
                info = {"success": False, "format_error": "not a legal move", "outcome": "forfeit"}
                return "Three malformed moves in a row: you forfeit.", -1.0, True, False, info
            info = {"success": False, "format_error": "not a legal move", "action_is_valid": False}
            return self._text(f"'{action[:20]}' is not a legal move ({self.bad} of 3)."), 0.0, False, False, info
        self.bad = 0
        self.stones = self.stones - int(move)
        if self.stones == 0:
            self.done = True
            return "You took the last stone and win.", 1.0, True, False, {"success": True}
        take = self._bot_take()
        self.stones = self.stones - take
        if self.stones == 0:
            self.done = True
            return f"The bot took {take}, the last stones. You lose.", -1.0, True, False, {"success": False}
        return self._text(f"You took {move}; the bot took {take}."), 0.0, False, False, {"success": False}

    def privileged_hint(self):
        return "Leave the bot a pile that is a multiple of four after each of your moves."

    def reference_action(self):
        return str(self.stones % 4 or 1)
