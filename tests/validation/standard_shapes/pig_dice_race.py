# shape: a two-player dice race with seeded dice (Pig: roll to build a turn total, hold to bank it)
"""Pig for two seats played by the same policy: roll the die to add to your turn total (a 1 wipes it and ends your
turn) or hold to bank it; the first to bank the target wins. The dice come from the episode's seed, drawn at reset,
so an episode is reproducible; holding with nothing to bank is not a move."""

from spade_domains.games.verify import clean_move, zero_sum_rewards

ENV_SPEC = {
    "name": "PigDiceRace",
    "domain": "games",
    "description": "Two-player Pig: roll a die to build a turn total (a 1 loses it) or hold to bank it; first to "
                   "the target wins. Dice are drawn from the seed.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 160,
    "players": 2,
    "difficulty": {"target": {"min": 12, "max": 30, "default": 20, "description": "points needed to win"}},
    "grounding": "Pig (John Scarne, 1945): the 'hold at 20' rule of thumb, scaled to a short race, is close to "
                 "optimal play (Neller and Presser, 2004).",
    "tags": ["two-player", "dice", "race", "seeded-dice"],
}


class PigDiceRace:
    def __init__(self, target=20):
        self.target = target
        self.dice = []
        self.rolled = 0
        self.scores = [0, 0]
        self.pot = 0
        self.player = 0
        self.invalid = [0, 0]
        self.done = False

    def reset(self, rng, options):
        self.dice = [rng.randint(1, 6) for _ in range(400)]
        self.rolled = 0
        self.scores = [0, 0]
        self.pot = 0
        self.player = rng.randint(0, 1)
        self.invalid = [0, 0]
        self.done = False
        return self._text(f"Race to {self.target}: player {self.player} starts."), self._info()

    def legal(self):
        return ["roll", "hold"] if self.pot > 0 else ["roll"]

    def _info(self):
        return {"player_id": self.player, "legal_moves": self.legal()}

    def _text(self, news):
        me = self.player
        return (f"{news}\nYou are player {me}. Banked: you {self.scores[me]}, opponent {self.scores[1 - me]} "
                f"(target {self.target}). Your turn total: {self.pot}. Reply 'roll' (a 1 loses the turn total and "
                "ends your turn)" + (" or 'hold' (bank the turn total and end your turn)." if self.pot else "."))

    def _forfeit(self, mover):
        self.done = True
        rewards = zero_sum_rewards(1 - mover)
        return (f"Player {mover} made three illegal replies in a row and forfeits.", rewards[mover], True, False,
                {"player_id": mover, "success": False, "rewards": rewards, "winner": 1 - mover,
                 "action_is_valid": False})

    def step(self, action):
        if self.done:
            return "The race is over.", 0.0, True, False, {"player_id": self.player, "success": False}
        mover = self.player
        move = clean_move(action, 40)
        if move not in self.legal():
            self.invalid[mover] = self.invalid[mover] + 1
            if self.invalid[mover] >= 3:
                return self._forfeit(mover)
            info = {**self._info(), "format_error": "expected 'roll' or 'hold'", "action_is_valid": False}
            return self._text(f"'{(move or '')[:10]}' is not a move now."), 0.0, False, False, info
        self.invalid[mover] = 0
        if move == "hold":
            self.scores[mover] = self.scores[mover] + self.pot
            banked, self.pot = self.pot, 0
            if self.scores[mover] >= self.target:
                self.done = True
                rewards = zero_sum_rewards(mover)
                return (f"Player {mover} banks {banked} and reaches {self.scores[mover]}: player {mover} wins.",
                        rewards[mover], True, False, {"player_id": mover, "success": True, "rewards": rewards,
                                                      "winner": mover})
            self.player = 1 - mover
            return self._text(f"Player {mover} banked {banked}."), 0.0, False, False, self._info()
        die = self.dice[self.rolled % len(self.dice)]
        self.rolled = self.rolled + 1
        if die == 1:
            self.pot = 0
            self.player = 1 - mover
            return self._text(f"Player {mover} rolled a 1 and lost the turn total."), 0.0, False, False, self._info()
        self.pot = self.pot + die
        return self._text(f"You rolled a {die}."), 0.0, False, False, self._info()

    def privileged_hint(self):
        need = self.target - self.scores[self.player]
        return (f"You need {need} more to win. Hold once the turn total reaches 8, or as soon as banking it wins; "
                "roll on while it is smaller.")

    def reference_action(self):
        if self.pot > 0 and (self.pot >= 8 or self.scores[self.player] + self.pot >= self.target):
            return "hold"
        return "roll"
