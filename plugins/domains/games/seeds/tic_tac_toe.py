"""Tic-tac-toe for two seats played by the same policy (SPIRAL-style self-play)."""

ENV_SPEC = {
    "name": "TicTacToe",
    "domain": "games",
    "description": "Two-player tic-tac-toe on a 3x3 board; each seat sees the board from its own side.",
    "reward_range": [-1.0, 1.0],
    "max_turns": 30,
    "players": 2,
    "difficulty": {
        "opening_moves": {"min": 0, "max": 3, "default": 0, "description": "random moves played before the agents start"},
    },
    "grounding": "Tic-tac-toe: three in a row wins; perfect play from both sides draws.",
    "tags": ["two-player", "zero-sum", "board"],
}

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
MARKS = ["X", "O"]


def winner_of(board):
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


def best_move(board, mark, memo):
    """Minimax over the remaining game: (score for `mark`, cell)."""
    key = ("".join(board), mark)
    if key in memo:
        return memo[key]
    other = "O" if mark == "X" else "X"
    best = (-2, -1)
    for cell in range(9):
        if board[cell] != ".":
            continue
        board[cell] = mark
        if winner_of(board) == mark:
            score = 1
        elif "." not in board:
            score = 0
        else:
            score = -best_move(board, other, memo)[0]
        board[cell] = "."
        if score > best[0]:
            best = (score, cell)
    memo[key] = best
    return best


class TicTacToe:
    def __init__(self, opening_moves=0):
        self.opening_moves = opening_moves
        self.memo = {}
        self.board = ["."] * 9
        self.player = 0

    def reset(self, rng, options):
        self.board = ["."] * 9
        self.player = 0
        for _ in range(self.opening_moves):
            free = [i for i in range(9) if self.board[i] == "."]
            self.board[rng.choice(free)] = MARKS[self.player]
            self.player = 1 - self.player
        return self._observation("Game start."), {"player_id": self.player}

    def _render(self):
        rows = []
        for r in range(3):
            cells = [self.board[3 * r + c] if self.board[3 * r + c] != "." else str(3 * r + c + 1) for c in range(3)]
            rows.append(" | ".join(cells))
        return "\n---------\n".join(rows)

    def _observation(self, note):
        mark = MARKS[self.player]
        return (
            f"{note}\nYou are player {self.player} ({mark}). Board (numbers are free cells):\n{self._render()}\n"
            f"Reply with the number of the cell to mark (1-9)."
        )

    def _parse(self, action):
        text = action.strip()
        if len(text) == 1 and text in "123456789":
            return int(text) - 1
        digits = [ch for ch in text if ch in "123456789"]
        if len(digits) == 1 and len(text) <= 40:
            return int(digits[0]) - 1
        return None

    def step(self, action):
        mover = self.player
        cell = self._parse(action)
        if cell is None:
            obs = self._observation("Invalid move: reply with one cell number from 1 to 9.")
            info = {"player_id": mover, "format_error": "expected a single cell number 1-9", "action_is_valid": False}
            return obs, 0.0, False, False, info
        if self.board[cell] != ".":
            obs = self._observation(f"Cell {cell + 1} is taken; choose a free cell.")
            return obs, 0.0, False, False, {"player_id": mover, "action_is_valid": False}
        self.board[cell] = MARKS[mover]
        won = winner_of(self.board) == MARKS[mover]
        if won or "." not in self.board:
            rewards = [0.0, 0.0]
            if won:
                rewards[mover], rewards[1 - mover] = 1.0, -1.0
            result = f"Player {mover} wins." if won else "Draw."
            obs = f"{result}\nFinal board:\n{self._render()}"
            info = {"player_id": mover, "success": won, "rewards": rewards, "winner": mover if won else None}
            return obs, rewards[mover], True, False, info
        self.player = 1 - mover
        return self._observation(f"Player {mover} marked cell {cell + 1}."), 0.0, False, False, {"player_id": self.player}

    def privileged_hint(self):
        mark, other = MARKS[self.player], MARKS[1 - self.player]
        threats = []
        for a, b, c in LINES:
            line = [self.board[a], self.board[b], self.board[c]]
            if line.count(other) == 2 and line.count(".") == 1:
                threats.append(str([a, b, c][line.index(".")] + 1))
        if threats:
            return f"Your opponent ({other}) threatens to complete a line at cell(s) {', '.join(sorted(set(threats)))}."
        return f"No immediate threats against {mark}; the centre and corners take part in the most lines."

    def reference_action(self):
        _, cell = best_move(list(self.board), MARKS[self.player], self.memo)
        return str(cell + 1)
