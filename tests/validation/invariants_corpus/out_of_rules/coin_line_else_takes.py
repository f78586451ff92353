# expect: out_of_rules
# twin: coin_line
# flaw: a reply that is neither left nor pass falls through to the branch that takes the right coin, silently
"""Coins in a row: two seats take a coin from either end in turn; the larger purse wins. Passing hands the turn
over and is worth nothing; a game with 30 moves and coins still on the table is drawn."""

from spade_domains.games.verify import zero_sum_rewards

ENV_SPEC = {
    "name": "CoinRowFallThrough",
    "domain": "games",
    "description": "Two players take a coin from the left or right end of a row in turn (or pass); the larger total "
                   "wins, equal totals draw.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 60,
    "players": 2,
    "difficulty": {"coins": {"min": 5, "max": 12, "default": 9, "description": "coins in the row"}},
    "grounding": "The coins-in-a-line game: dynamic programming over the remaining row finds the best end to take.",
    "tags": ["two-player", "combinatorial-game", "self-play"],
}

MOVE_LIMIT = 30
PASS_REWARD = 0.0


class CoinRowFallThrough:
    def __init__(self, coins=9):
        self.count = coins
        self.row = []
        self.purse = [0, 0]
        self.player = 0
        self.moves = 0

    def reset(self, rng, options):
        self.row = [rng.randint(1, 25) for _ in range(self.count)]
        self.purse = [0, 0]
        self.player = rng.randint(0, 1)
        self.moves = 0
        return self.observe("Game start."), self.info()

    def info(self):
        return {"player_id": self.player, "legal_moves": ["left", "right", "pass"]}

    def observe(self, note):
        row = " ".join(str(c) for c in self.row)
        return (f"{note} You are player {self.player}. Row: {row}. Purses: player 0 has {self.purse[0]}, player 1 "
                f"has {self.purse[1]}. Reply 'left', 'right' or 'pass'. Move {self.moves + 1} of {MOVE_LIMIT}.")

    def finish(self, mover, note):
        if self.purse[0] == self.purse[1]:
            rewards, winner = zero_sum_rewards(None), None
        else:
            winner = 0 if self.purse[0] > self.purse[1] else 1
            rewards = zero_sum_rewards(winner)
        return (f"{note} Final purses {self.purse[0]} and {self.purse[1]}.", rewards[mover], True, False,
                {"player_id": mover, "rewards": rewards, "winner": winner, "success": winner == mover})

    def step(self, action):
        mover = self.player
        move = action.strip().lower()
        self.moves = self.moves + 1
        reward = 0.0
        if move == "pass":
            note, reward = f"Player {mover} passed.", PASS_REWARD
        elif move == "left":
            coin = self.row.pop(0)
            self.purse[mover] = self.purse[mover] + coin
            note = f"Player {mover} took {coin} from the left."
        else:
            coin = self.row.pop(-1)
            self.purse[mover] = self.purse[mover] + coin
            note = f"Player {mover} took {coin} from the right."
        if not self.row:
            return self.finish(mover, note + " The row is empty.")
        if self.moves >= MOVE_LIMIT:
            return self.finish(mover, note + f" {MOVE_LIMIT} moves played.")
        self.player = 1 - mover
        return self.observe(note), reward, False, False, self.info()

    def best(self):
        """The margin the mover can secure over the rest of the row, and the end that secures it."""
        row = self.row
        n = len(row)
        margin = [[0] * (n + 1) for _ in range(n + 1)]
        for length in range(1, n + 1):
            for i in range(n - length + 1):
                j = i + length
                margin[i][j] = max(row[i] - margin[i + 1][j], row[j - 1] - margin[i][j - 1])
        left = row[0] - margin[1][n]
        right = row[-1] - margin[0][n - 1]
        return ("left" if left >= right else "right"), max(left, right)

    def privileged_hint(self):
        return "Compare what each end leaves your opponent, not only the coin itself."

    def reference_action(self):
        return self.best()[0]
