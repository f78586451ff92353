"""Connect Four on a small board for two seats played by the same policy."""

from spade_domains.games.verify import move_integers, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "ConnectFourSmall",
    "domain": "games",
    "description": (
        "Two-player Connect Four on a 5x4 to 7x6 board: drop a disc into a column; four in a row (across, down or "
        "diagonal) wins. Each seat sees the board with its own disc named; three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 60,
    "players": 2,
    "difficulty": {
        "columns": {"min": 5, "max": 7, "default": 6,
                    "description": "board width (height is one less): a bigger board means longer plans"},
        "opening_moves": {"min": 0, "max": 4, "default": 2,
                          "description": "random discs dropped before the agents start (varied openings)"},
    },
    "grounding": (
        "Connect Four (Milton Bradley, 1974), a solved game: on the standard 7x6 board the first player wins with "
        "perfect play starting in the centre column (Allis, 1988). Threat analysis counts open windows of four."
    ),
    "tags": ["two-player", "zero-sum", "board", "self-play", "connection"],
}

MARKS = ["X", "O"]
INVALID_LIMIT = 3
SEARCH_DEPTH = 2
WIN_SCORE = 10000


def windows_for(rows, cols):
    """Every line of four cells as (row, col) pairs."""
    found = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < rows and 0 <= cc < cols for rr, cc in cells):
                    found.append(cells)
    return found


class ConnectFourSmall:
    def __init__(self, columns=6, opening_moves=2):
        self.opening_moves = opening_moves
        self.cols = columns
        self.rows = columns - 1
        self.windows = windows_for(self.rows, self.cols)
        centre = (self.cols - 1) / 2
        self.order = sorted(range(self.cols), key=lambda c: (abs(c - centre), c))
        self.board = []
        self.player = 0
        self.invalid = [0, 0]
        self.moves = 0
        self.done = False

    def reset(self, rng, options):
        self.board = [["." for _ in range(self.cols)] for _ in range(self.rows)]
        self.player = 0
        self.invalid = [0, 0]
        self.moves = 0
        self.done = False
        dropped = []
        for _ in range(self.opening_moves):  # fewer than seven discs: no line of four can form
            col = rng.choice([c for c in range(self.cols) if self.open_row(self.board, c) >= 0])
            self.board[self.open_row(self.board, col)][col] = MARKS[self.player]
            dropped.append(str(col + 1))
            self.moves = self.moves + 1
            self.player = 1 - self.player
        note = f"Game start after random opening drops in columns {', '.join(dropped)}." if dropped else "Game start."
        return self.observation(note), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [str(c + 1) for c in range(self.cols) if self.open_row(self.board, c) >= 0]

    def render(self):
        lines = [" ".join(row) for row in self.board]
        lines.append(" ".join(str(c + 1) for c in range(self.cols)))
        return "\n".join(lines)

    def observation(self, note):
        p = self.player
        return (
            f"{note}\nYou are player {p} ({MARKS[p]}); your opponent is player {1 - p} ({MARKS[1 - p]}). "
            f"Board ({self.cols} columns x {self.rows} rows, '.' is empty, discs fall to the lowest empty cell):\n"
            f"{self.render()}\nReply with the number of a column that is not full."
        )

    def open_row(self, board, col):
        for r in range(self.rows - 1, -1, -1):
            if board[r][col] == ".":
                return r
        return -1

    def wins_at(self, board, r, c, mark):
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < self.rows and 0 <= cc < self.cols and board[rr][cc] == mark:
                    count = count + 1
                    rr, cc = rr + sign * dr, cc + sign * dc
            if count >= 4:
                return True
        return False

    def heuristic(self, board, mark):
        other = MARKS[1] if mark == MARKS[0] else MARKS[0]
        score = 0
        for cells in self.windows:
            mine = 0
            theirs = 0
            for r, c in cells:
                if board[r][c] == mark:
                    mine = mine + 1
                elif board[r][c] == other:
                    theirs = theirs + 1
            if theirs == 0:
                score = score + (0, 1, 4, 20, 0)[mine]
            elif mine == 0:
                score = score - (0, 1, 4, 25, 0)[theirs]
        return score

    def negamax(self, board, mark, depth, alpha, beta, moves_left):
        other = MARKS[1] if mark == MARKS[0] else MARKS[0]
        best = -WIN_SCORE * 10
        best_col = -1
        any_move = False
        for col in self.order:
            r = self.open_row(board, col)
            if r < 0:
                continue
            any_move = True
            board[r][col] = mark
            if self.wins_at(board, r, col, mark):
                value = WIN_SCORE + depth
            elif moves_left == 1:
                value = 0
            elif depth == 0:
                value = self.heuristic(board, mark)
            else:
                value = -self.negamax(board, other, depth - 1, -beta, -alpha, moves_left - 1)[0]
            board[r][col] = "."
            if value > best:
                best, best_col = value, col
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        if not any_move:
            return 0, -1
        return best, best_col

    def reject(self, mover, message, error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            self.done = True
            winner = 1 - mover
            rewards = zero_sum_rewards(winner)
            obs = f"{message}\nPlayer {mover} made {INVALID_LIMIT} invalid moves in a row and forfeits."
            return obs, rewards[mover], True, False, {"player_id": mover, "success": False, "rewards": rewards,
                                                      "winner": winner, "format_error": error,
                                                      "action_is_valid": False}
        obs = self.observation(f"{message} ({INVALID_LIMIT - self.invalid[mover]} more invalid moves forfeit.)")
        return obs, 0.0, False, False, {"player_id": mover, "format_error": error, "action_is_valid": False,
                                        "legal_moves": self.legal_moves()}

    def step(self, action):
        mover = self.player
        numbers = move_integers(action, 40)
        if len(numbers) != 1 or not 1 <= numbers[0] <= self.cols:
            return self.reject(mover, f"Invalid move {safe_echo(action)!r}: reply with one column number from 1 to "
                                      f"{self.cols}.", f"expected a single column number 1-{self.cols}")
        col = numbers[0] - 1
        r = self.open_row(self.board, col)
        if r < 0:
            return self.reject(mover, f"Column {col + 1} is full; choose another column.", None)
        self.invalid[mover] = 0
        self.board[r][col] = MARKS[mover]
        self.moves = self.moves + 1
        won = self.wins_at(self.board, r, col, MARKS[mover])
        if won or self.moves == self.rows * self.cols:
            self.done = True
            winner = mover if won else None
            rewards = zero_sum_rewards(winner)
            result = f"Player {mover} connects four and wins." if won else "The board is full: draw."
            obs = f"{result}\nFinal board:\n{self.render()}"
            return obs, rewards[mover], True, False, {"player_id": mover, "success": won, "rewards": rewards,
                                                      "winner": winner}
        self.player = 1 - mover
        note = f"Player {mover} dropped a disc in column {col + 1}."
        return self.observation(note), 0.0, False, False, {"player_id": self.player,
                                                           "legal_moves": self.legal_moves()}

    def immediate_wins(self, mark):
        found = 0
        for col in range(self.cols):
            r = self.open_row(self.board, col)
            if r >= 0:
                self.board[r][col] = mark
                if self.wins_at(self.board, r, col, mark):
                    found = found + 1
                self.board[r][col] = "."
        return found

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        mark, other = MARKS[self.player], MARKS[1 - self.player]
        if self.immediate_wins(mark):
            return f"You ({mark}) can connect four with this move."
        threats = self.immediate_wins(other)
        if threats > 1:
            return f"Your opponent ({other}) has two winning drops next turn; you can block only one."
        if threats == 1:
            return f"Your opponent ({other}) can connect four next turn unless you block that drop now."
        return "No immediate threats. Central columns take part in the most lines of four; avoid giving the " \
               "opponent a winning cell directly above your disc."

    def reference_action(self):
        if self.done:
            return "1"
        board = [list(row) for row in self.board]
        left = self.rows * self.cols - self.moves
        col = self.negamax(board, MARKS[self.player], SEARCH_DEPTH, -WIN_SCORE * 100, WIN_SCORE * 100, left)[1]
        if col < 0:
            col = [c for c in self.order if self.open_row(self.board, c) >= 0][0]
        return str(col + 1)
