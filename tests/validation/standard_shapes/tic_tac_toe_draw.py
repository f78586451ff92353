# shape: tic-tac-toe against a bot where a draw is a legitimate result, paid as a draw (0 between -1 and +1)
"""Play X against a bot that completes its own lines, blocks yours and otherwise follows a preference order drawn per
seed. A win pays +1, a draw 0 and a loss -1; three malformed or illegal replies in a row forfeit. The seed's
preference order always leaves X a forced win, which the reference finds by searching the bot's replies."""

ENV_SPEC = {
    "name": "TicTacToeDraw",
    "domain": "games",
    "description": "Tic-tac-toe as X against a blocking bot: a win pays 1, a draw 0, a loss -1; three malformed "
                   "moves in a row forfeit.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 12,
    "players": 1,
    "difficulty": {"strict": {"min": 0, "max": 1, "default": 1,
                              "description": "1: the bot also prefers the centre when it is free"}},
    "grounding": "Tic-tac-toe: a fork (two open lines at once) beats a bot that only blocks one line per turn; "
                 "against perfect play the game is a draw.",
    "tags": ["game", "tic-tac-toe", "draw", "bot"],
}

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def completing(board, mark):
    """A free cell that completes a line of ``mark``, or None."""
    for line in LINES:
        marks = [board[i] for i in line]
        if marks.count(mark) == 2 and marks.count(".") == 1:
            return line[marks.index(".")]
    return None


def bot_move(board, order):
    cell = completing(board, "O")
    if cell is None:
        cell = completing(board, "X")
    if cell is None:
        cell = next(i for i in order if board[i] == ".")
    return cell


def forced_win(board, order):
    """A cell with which X (to move) forces a win against the bot, or None."""
    for cell in range(9):
        if board[cell] != ".":
            continue
        after = board[:cell] + "X" + board[cell + 1:]
        if winner(after) == "X":
            return cell
        if "." not in after:
            continue
        reply = bot_move(after, order)
        after = after[:reply] + "O" + after[reply + 1:]
        if winner(after) is None and "." in after and forced_win(after, order) is not None:
            return cell
    return None


class TicTacToeDraw:
    def __init__(self, strict=1):
        self.strict = strict
        self.board = "." * 9
        self.order = list(range(9))
        self.bad = 0
        self.done = False

    def reset(self, rng, options):
        self.board = "." * 9
        self.order = rng.sample(range(9), 9)
        if self.strict:
            self.order.remove(4)
            self.order.insert(0, 4)
        while forced_win(self.board, self.order) is None:
            self.order = rng.sample(range(9), 9)
        self.bad = 0
        self.done = False
        return self._text("You are X and move first."), {"legal_moves": self.legal()}

    def legal(self):
        return [str(i + 1) for i in range(9) if self.board[i] == "."]

    def _text(self, news):
        rows = [" ".join(self.board[r * 3 + c] if self.board[r * 3 + c] != "." else str(r * 3 + c + 1)
                         for c in range(3)) for r in range(3)]
        return (f"{news}\n" + "\n".join(rows) + "\nReply with the number of a free cell. Win +1, draw 0, loss -1; "
                "three malformed or illegal replies in a row forfeit (-1).")

    def _end(self, text, reward, won):
        self.done = True
        return text, reward, True, False, {"success": won}

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        move = action.strip().rstrip(".")
        if move not in self.legal():
            self.bad = self.bad + 1
            if self.bad >= 3:
                return self._end("Three illegal replies in a row: you forfeit.", -1.0, False)
            info = {"success": False, "format_error": "expected a free cell number", "action_is_valid": False,
                    "legal_moves": self.legal()}
            return self._text(f"'{move[:12]}' is not a free cell ({self.bad} of 3)."), 0.0, False, False, info
        self.bad = 0
        cell = int(move) - 1
        self.board = self.board[:cell] + "X" + self.board[cell + 1:]
        if winner(self.board) == "X":
            return self._end("Three in a row: you win.", 1.0, True)
        if "." not in self.board:
            return self._end("The board is full: a draw.", 0.0, False)
        reply = bot_move(self.board, self.order)
        self.board = self.board[:reply] + "O" + self.board[reply + 1:]
        if winner(self.board) == "O":
            return self._end(f"The bot played {reply + 1} and completed a line: you lose.", -1.0, False)
        if "." not in self.board:
            return self._end(f"The bot played {reply + 1}; the board is full: a draw.", 0.0, False)
        return self._text(f"The bot played {reply + 1}."), 0.0, False, False, {"success": False,
                                                                                "legal_moves": self.legal()}

    def privileged_hint(self):
        return "The bot blocks one line per turn: build two open lines of two X at once (a fork)."

    def reference_action(self):
        cell = forced_win(self.board, self.order)
        return str((cell if cell is not None else self.board.index(".")) + 1)
