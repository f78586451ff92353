# shape: Reversi/Othello on an even board, both seats played by the agent, with a forced-pass rule, resignation and the disc count deciding the winner (draws possible).
"""Reversi (Othello) self-play: both seats are the agent; 'pass' only when no placement exists, 'resign' any time."""

import string

from spade_domains.games.verify import clean_move, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "ReversiPassResign",
    "domain": "games",
    "description": (
        "Two-player Reversi on a 6x6 or 8x8 board. Each seat places a disc that outflanks opponent discs in a "
        "straight line and flips them; a seat with no placement must reply 'pass'; 'resign' concedes. The game "
        "ends when neither seat can move; more discs wins, equal counts draw. Three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 250,
    "players": 2,
    "difficulty": {
        "size": {"min": 6, "max": 8, "default": 6, "description": "board side (7 is played as 6)"},
        "opening_moves": {"min": 0, "max": 4, "default": 2, "description": "random legal moves played first"},
    },
    "grounding": "Othello/Reversi rules: a move must flip at least one line of opponent discs; a player without a "
                 "legal move passes; when neither can move the game ends and the disc majority wins.",
    "tags": ["two-player", "zero-sum", "board", "self-play", "pass-rule"],
}

MARKS = ["X", "O"]
DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
INVALID_LIMIT = 3


class ReversiPassResign:
    def __init__(self, size=6, opening_moves=2):
        self.n = max(6, min(8, size - size % 2))
        self.opening_moves = opening_moves
        self.board = []
        self.player = 0
        self.invalid = [0, 0]
        self.turns = 0
        self.tie_order = []
        self.done = False

    def reset(self, rng, options):
        n, h = self.n, self.n // 2
        self.board = [["."] * n for _ in range(n)]
        self.board[h - 1][h - 1], self.board[h][h] = "O", "O"
        self.board[h - 1][h], self.board[h][h - 1] = "X", "X"
        self.player, self.invalid, self.turns, self.done = 0, [0, 0], 0, False
        self.tie_order = rng.sample(range(n * n), n * n)
        for _ in range(self.opening_moves):
            moves = self.moves(self.player)
            if moves:
                self.place(rng.choice(moves), self.player)
            self.player = 1 - self.player
        return self.observation("Game start."), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def flips(self, r, c, seat):
        if self.board[r][c] != ".":
            return []
        mine, theirs, out = MARKS[seat], MARKS[1 - seat], []
        for dr, dc in DIRS:
            line, y, x = [], r + dr, c + dc
            while 0 <= y < self.n and 0 <= x < self.n and self.board[y][x] == theirs:
                line.append((y, x))
                y, x = y + dr, x + dc
            if line and 0 <= y < self.n and 0 <= x < self.n and self.board[y][x] == mine:
                out.extend(line)
        return out

    def moves(self, seat):
        return [(r, c) for r in range(self.n) for c in range(self.n) if self.flips(r, c, seat)]

    def place(self, cell, seat):
        for y, x in self.flips(cell[0], cell[1], seat):
            self.board[y][x] = MARKS[seat]
        self.board[cell[0]][cell[1]] = MARKS[seat]

    def name(self, cell):
        return f"{string.ascii_lowercase[cell[1]]}{cell[0] + 1}"

    def legal_moves(self):
        moves = [self.name(m) for m in self.moves(self.player)]
        return (moves or ["pass"]) + ["resign"]

    def count(self, seat):
        return sum(row.count(MARKS[seat]) for row in self.board)

    def render(self):
        head = "  " + " ".join(string.ascii_lowercase[: self.n])
        return "\n".join([head] + [f"{r + 1} " + " ".join(self.board[r]) for r in range(self.n)])

    def observation(self, note):
        p = self.player
        return (f"{note}\nYou are player {p} ({MARKS[p]}); player {1 - p} is {MARKS[1 - p]}. Discs: {MARKS[p]} "
                f"{self.count(p)}, {MARKS[1 - p]} {self.count(1 - p)}.\n{self.render()}\nLegal replies: "
                f"{', '.join(self.legal_moves())}. Reply with a cell like c4 (column letter, row number); reply "
                f"'pass' only when you have no placement; 'resign' concedes.")

    def finish(self, winner, mover, text, extra=None):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner}
        info.update(extra or {})
        return f"{text}\nFinal board:\n{self.render()}", rewards[mover], True, False, info

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        extra = {"format_error": format_error, "action_is_valid": False}
        if self.invalid[mover] >= INVALID_LIMIT:
            return self.finish(1 - mover, mover, f"{message}\nPlayer {mover} forfeits after {INVALID_LIMIT} invalid "
                                                 f"moves.", extra)
        extra.update({"player_id": mover, "legal_moves": self.legal_moves()})
        return self.observation(f"{message} ({INVALID_LIMIT - self.invalid[mover]} more invalid moves forfeit.)"), \
            0.0, False, False, extra

    def step(self, action):
        mover = self.player
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": mover, "success": False}
        self.turns = self.turns + 1
        move = clean_move(action if isinstance(action, str) else "", 40)
        legal = self.moves(mover)
        if move == "resign":
            return self.finish(1 - mover, mover, f"Player {mover} resigns. Player {1 - mover} wins.")
        if move == "pass":
            if legal:
                return self.reject(mover, "You cannot pass while you have a legal placement.", None)
            note = f"Player {mover} passes."
        else:
            cell = None
            if move and len(move) in (2, 3) and move[0] in string.ascii_lowercase[: self.n] and move[1:].isdigit():
                cell = (int(move[1:]) - 1, string.ascii_lowercase.index(move[0]))
            if cell is None or not 0 <= cell[0] < self.n:
                return self.reject(mover, f"Invalid move {safe_echo(action)!r}: reply like c4, or pass/resign.",
                                   "expected a cell like c4, 'pass' or 'resign'")
            if cell not in legal:
                return self.reject(mover, f"{self.name(cell)} flips nothing or is occupied.", None)
            self.place(cell, mover)
            note = f"Player {mover} played {self.name(cell)}."
        self.invalid[mover] = 0
        if not self.moves(0) and not self.moves(1) or self.turns >= ENV_SPEC["max_turns"]:
            a, b = self.count(0), self.count(1)
            winner = None if a == b else (0 if a > b else 1)
            result = "Draw." if winner is None else f"Player {winner} wins."
            return self.finish(winner, mover, f"{note} No moves remain. {MARKS[0]} {a}, {MARKS[1]} {b}. {result}")
        self.player = 1 - mover
        return self.observation(note), 0.0, False, False, {"player_id": self.player, "legal_moves": self.legal_moves()}

    def score(self, cell, seat):
        r, c, last = cell[0], cell[1], self.n - 1
        value = len(self.flips(r, c, seat))
        if r in (0, last) and c in (0, last):
            value = value + 20
        elif min(r, last - r) <= 1 and min(c, last - c) <= 1:
            value = value - 6
        elif r in (0, last) or c in (0, last):
            value = value + 3
        return value

    def privileged_hint(self):
        mine, theirs = len(self.moves(self.player)), len(self.moves(1 - self.player))
        return (f"You have {mine} legal placements, your opponent {theirs}. Corners can never be flipped back; a "
                f"square next to an empty corner hands it over; edges are safer than the middle ring, and limiting "
                f"the opponent's replies matters more than flipping many discs now.")

    def reference_action(self):
        legal = self.moves(self.player)
        if self.done or not legal:
            return "pass"
        rank = {cell: self.tie_order.index(cell[0] * self.n + cell[1]) for cell in legal}
        return self.name(max(legal, key=lambda cell: (self.score(cell, self.player), -rank[cell])))
