# shape: a two-player board game on a small board (connect three), the starting seat drawn per seed
"""Connect three on a board of five lettered columns and four rows, for two seats played by the same policy. Who
starts is drawn per seed (so neither seat is favoured over the seeds); a full board is a draw paid 0, and three
malformed or illegal replies in a row forfeit."""

from spade_domains.games.verify import clean_move, zero_sum_rewards

ENV_SPEC = {
    "name": "ConnectThree",
    "domain": "games",
    "description": "Two-player connect three on a 5x4 board (discs drop to the lowest free cell of a lettered "
                   "column); three in a row in any direction wins, a full board draws.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 40,
    "players": 2,
    "difficulty": {"rows": {"min": 3, "max": 5, "default": 4, "description": "rows of the board"}},
    "grounding": "Connect-k games (m,n,k-games with gravity): connect three on a narrow board is a short race in "
                 "which the side that makes two threats at once wins.",
    "tags": ["two-player", "board", "gravity", "self-play"],
}

COLUMNS = "abcde"
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class ConnectThree:
    def __init__(self, rows=4):
        self.rows = rows
        self.board = []
        self.order = list(range(5))
        self.player = 0
        self.invalid = [0, 0]
        self.done = False

    def reset(self, rng, options):
        self.board = [["." for _ in range(5)] for _ in range(self.rows)]
        self.player = rng.randint(0, 1)
        self.order = rng.sample(range(5), 5)
        self.invalid = [0, 0]
        self.done = False
        return self._text(f"Game start: player {self.player} moves first."), self._info()

    def mark(self, seat):
        return "XO"[seat]

    def free_row(self, col):
        return next((r for r in range(self.rows - 1, -1, -1) if self.board[r][col] == "."), -1)

    def legal(self):
        return [COLUMNS[c] for c in range(5) if self.free_row(c) >= 0]

    def _info(self):
        return {"player_id": self.player, "legal_moves": self.legal()}

    def _text(self, news):
        lines = [" ".join(row) for row in self.board] + [" ".join(COLUMNS)]
        return (f"{news}\nYou are player {self.player} ({self.mark(self.player)}). Board:\n" + "\n".join(lines)
                + "\nReply with the letter of a column that is not full. Three in a row in any direction wins.")

    def three_at(self, r, c, mark):
        for dr, dc in DIRECTIONS:
            count = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < self.rows and 0 <= cc < 5 and self.board[rr][cc] == mark:
                    count, rr, cc = count + 1, rr + sign * dr, cc + sign * dc
            if count >= 3:
                return True
        return False

    def wins_with(self, col, mark):
        r = self.free_row(col)
        if r < 0:
            return False
        self.board[r][col] = mark
        won = self.three_at(r, col, mark)
        self.board[r][col] = "."
        return won

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": self.player, "success": False}
        mover = self.player
        move = clean_move(action, 40)
        if move not in self.legal():
            self.invalid[mover] = self.invalid[mover] + 1
            if self.invalid[mover] >= 3:
                self.done = True
                rewards = zero_sum_rewards(1 - mover)
                return (f"Player {mover} made three illegal replies in a row and forfeits.", rewards[mover], True,
                        False, {"player_id": mover, "success": False, "rewards": rewards, "winner": 1 - mover,
                                "action_is_valid": False})
            info = {**self._info(), "format_error": "expected the letter of a column that is not full",
                    "action_is_valid": False}
            return self._text(f"'{(move or '')[:10]}' is not a playable column."), 0.0, False, False, info
        self.invalid[mover] = 0
        col = COLUMNS.index(move)
        row = self.free_row(col)
        self.board[row][col] = self.mark(mover)
        won = self.three_at(row, col, self.mark(mover))
        if won or not self.legal():
            self.done = True
            winner = mover if won else None
            rewards = zero_sum_rewards(winner)
            text = f"Player {mover} connects three and wins." if won else "The board is full: a draw."
            return text, rewards[mover], True, False, {"player_id": mover, "success": won, "rewards": rewards,
                                                       "winner": winner}
        self.player = 1 - mover
        return self._text(f"Player {mover} dropped a disc in column {move}."), 0.0, False, False, self._info()

    def privileged_hint(self):
        me, them = self.mark(self.player), self.mark(1 - self.player)
        if any(self.wins_with(c, me) for c in range(5)):
            return "One of your drops completes three in a row now."
        if any(self.wins_with(c, them) for c in range(5)):
            return "Your opponent threatens to complete three in a row on the next drop."
        return "No threat yet: aim for a drop that opens two threats at once, and never give one away below it."

    def reference_action(self):
        me, them = self.mark(self.player), self.mark(1 - self.player)
        playable = [c for c in self.order if self.free_row(c) >= 0]
        for mark in (me, them):
            hit = next((c for c in playable if self.wins_with(c, mark)), None)
            if hit is not None:
                return COLUMNS[hit]
        safe = []
        for c in playable:
            r = self.free_row(c)
            self.board[r][c] = me
            if not self.wins_with(c, them):
                safe.append(c)
            self.board[r][c] = "."
        return COLUMNS[(safe or playable)[0]]
