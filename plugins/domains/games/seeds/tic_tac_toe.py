"""Tic-tac-toe for two seats played by the same policy (SPIRAL-style self-play)."""

from spade_domains.games.verify import move_integers, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "TicTacToe",
    "domain": "games",
    "description": (
        "Two-player tic-tac-toe on a 3x3 board; each seat sees the board from its own side and replies with a "
        "cell number. Three invalid moves in a row forfeit the game."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 30,
    "players": 2,
    "difficulty": {
        "opening_moves": {"min": 0, "max": 3, "default": 0,
                          "description": "random moves played before the agents start (varied, less studied openings)"},
    },
    "grounding": "Tic-tac-toe (noughts and crosses): three in a row wins; perfect play from both sides draws.",
    "tags": ["two-player", "zero-sum", "board", "self-play"],
}

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
LINE_NAMES = ["top row", "middle row", "bottom row", "left column", "middle column", "right column",
              "main diagonal", "anti-diagonal"]
MARKS = ["X", "O"]
INVALID_LIMIT = 3
SOLVED = {}  # a pure cache of solve() results, shared by all instances (same position, same answer)


def winner_of(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def other_mark(mark):
    return "O" if mark == "X" else "X"


def move_value(board, cell, mark, memo):
    """(game value, expected wins minus losses against a uniformly random reply) of `mark` playing `cell`."""
    board[cell] = mark
    if winner_of(board) == mark:
        result = (1, 1.0)
    elif "." not in board:
        result = (0, 0.0)
    else:
        result = (-solve(board, other_mark(mark), memo)[0], -random_reply_edge(board, other_mark(mark), memo))
    board[cell] = "."
    return result


def solve(board, mark, memo):
    """(game value, edge) of the position for `mark` to move: the minimax value, and among minimax-optimal moves
    the best expected (wins - losses) against an opponent that plays uniformly at random."""
    key = "".join(board) + mark
    if key not in memo:
        best = (-2, -2.0)
        for cell in range(9):
            if board[cell] == ".":
                best = max(best, move_value(board, cell, mark, memo))
        memo[key] = best
    return memo[key]


def random_reply_edge(board, mark, memo):
    """Expected (wins - losses) for `mark` when `mark` plays uniformly at random and the other side uses solve()."""
    key = "r" + "".join(board) + mark
    if key not in memo:
        free = [i for i in range(9) if board[i] == "."]
        total = 0.0
        for cell in free:
            board[cell] = mark
            if winner_of(board) == mark:
                total = total + 1.0
            elif "." in board:
                total = total - solve(board, other_mark(mark), memo)[1]
            board[cell] = "."
        memo[key] = total / len(free)
    return memo[key]


class TicTacToe:
    def __init__(self, opening_moves=0):
        self.opening_moves = opening_moves
        self.memo = SOLVED
        self.tie_order = list(range(9))
        self.board = ["."] * 9
        self.player = 0
        self.invalid = [0, 0]
        self.done = False

    def reset(self, rng, options):
        self.tie_order = rng.sample(list(range(9)), 9)  # the reference breaks ties between equal moves at random
        self.board = ["."] * 9
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        for _ in range(self.opening_moves):
            free = [i for i in range(9) if self.board[i] == "."]
            self.board[rng.choice(free)] = MARKS[self.player]
            self.player = 1 - self.player
        note = "Game start." if not self.opening_moves else f"Game start after {self.opening_moves} random moves."
        return self.observation(note), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [str(i + 1) for i in range(9) if self.board[i] == "."]

    def render(self):
        rows = []
        for r in range(3):
            cells = [self.board[3 * r + c] if self.board[3 * r + c] != "." else str(3 * r + c + 1) for c in range(3)]
            rows.append(" | ".join(cells))
        return "\n---------\n".join(rows)

    def observation(self, note):
        mark = MARKS[self.player]
        return (
            f"{note}\nYou are player {self.player} ({mark}); your opponent is player {1 - self.player} "
            f"({MARKS[1 - self.player]}). Board (numbers are free cells):\n{self.render()}\n"
            f"Reply with the number of a free cell to mark."
        )

    def parse(self, action):
        numbers = move_integers(action, 40)
        if len(numbers) != 1 or not 1 <= numbers[0] <= 9:
            return None
        return numbers[0] - 1

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            self.done = True
            winner = 1 - mover
            rewards = zero_sum_rewards(winner)
            obs = (f"{message}\nPlayer {mover} made {INVALID_LIMIT} invalid moves in a row and forfeits. "
                   f"Player {winner} wins.")
            info = {"player_id": mover, "success": False, "rewards": rewards, "winner": winner,
                    "format_error": format_error, "action_is_valid": False}
            return obs, rewards[mover], True, False, info
        left = INVALID_LIMIT - self.invalid[mover]
        obs = self.observation(f"{message} ({left} more invalid moves forfeit the game.)")
        return obs, 0.0, False, False, {"player_id": mover, "format_error": format_error, "action_is_valid": False,
                                        "legal_moves": self.legal_moves()}

    def step(self, action):
        mover = self.player
        cell = self.parse(action)
        if cell is None:
            return self.reject(mover, f"Invalid move {safe_echo(action)!r}: reply with one cell number from 1 to 9.",
                               "expected a single cell number 1-9")
        if self.board[cell] != ".":
            return self.reject(mover, f"Cell {cell + 1} is taken; choose a free cell.", None)
        self.invalid[mover] = 0
        self.board[cell] = MARKS[mover]
        won = winner_of(self.board) == MARKS[mover]
        if won or "." not in self.board:
            self.done = True
            winner = mover if won else None
            rewards = zero_sum_rewards(winner)
            result = f"Player {mover} wins." if won else "Draw."
            obs = f"{result}\nFinal board:\n{self.render()}"
            info = {"player_id": mover, "success": won, "rewards": rewards, "winner": winner}
            return obs, rewards[mover], True, False, info
        self.player = 1 - mover
        obs = self.observation(f"Player {mover} marked cell {cell + 1}.")
        return obs, 0.0, False, False, {"player_id": self.player, "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        mark, other = MARKS[self.player], MARKS[1 - self.player]
        wins, threats = [], []
        for k in range(len(LINES)):
            line = [self.board[i] for i in LINES[k]]
            if line.count(".") == 1 and line.count(mark) == 2:
                wins.append(LINE_NAMES[k])
            if line.count(".") == 1 and line.count(other) == 2:
                threats.append(LINE_NAMES[k])
        if wins:
            return f"You ({mark}) can complete the {' or the '.join(wins)} this turn."
        if threats:
            return f"Your opponent ({other}) threatens to complete the {' or the '.join(threats)}."
        return f"No immediate threats against {mark}; a move that creates two threats at once wins (a fork)."

    def reference_action(self):
        if self.done or "." not in self.board:
            return "1"
        board = list(self.board)
        mark = MARKS[self.player]
        best, best_cell = None, -1
        for cell in self.tie_order:
            if board[cell] == ".":
                value, edge = move_value(board, cell, mark, self.memo)
                score = (value, round(edge, 9))
                if best is None or score > best:
                    best, best_cell = score, cell
        return str(best_cell + 1)
