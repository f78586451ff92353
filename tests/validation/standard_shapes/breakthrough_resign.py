# shape: two-player game with 'resign' allowed and a forfeit after three invalid moves in a row (Breakthrough)
"""Breakthrough on a small board for two seats played by the same policy."""

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "BreakthroughSmallBoard",
    "domain": "games",
    "description": (
        "Breakthrough for two seats: each side has two rows of pawns. A pawn steps one square straight or "
        "diagonally forward onto an empty square, or captures an enemy pawn diagonally forward (never straight). "
        "The first to reach the far row, or to capture every enemy pawn, wins; a side with no move loses. Moves "
        "are written 'b2 b3'; 'resign' concedes. Three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 200,
    "players": 2,
    "difficulty": {
        "columns": {"min": 4, "max": 6, "default": 5, "description": "board width"},
        "rows": {"min": 5, "max": 7, "default": 6, "description": "board height (distance to break through)"},
        "random_plies": {"min": 0, "max": 4, "default": 2, "description": "random opening moves played first"},
    },
    "grounding": "Breakthrough (Dan Troyka, 2000): forward and diagonal steps, diagonal captures, reach the home row.",
    "tags": ["two-player", "zero-sum", "board", "self-play", "resign"],
}

SIDES = ("W", "B")  # seat 0 White moves up (towards higher rows), seat 1 Black moves down
INVALID_LIMIT = 3


class BreakthroughSmallBoard:
    def __init__(self, columns=5, rows=6, random_plies=2):
        self.columns = columns
        self.rows = rows
        self.random_plies = random_plies
        self.cells = []
        self.turn = 0
        self.strikes = [0, 0]
        self.steps = 0
        self.over = False
        self.weights = []

    def reset(self, rng, options):
        self.cells = [["."] * self.columns for _ in range(self.rows)]
        for c in range(self.columns):
            for r in (0, 1):
                self.cells[r][c] = "W"
                self.cells[self.rows - 1 - r][c] = "B"
        self.turn = 0
        self.strikes = [0, 0]
        self.steps = 0
        self.over = False
        for _ in range(self.random_plies):
            options_now = [m for m in self.moves(self.turn) if not self.wins_at_once(m)]
            if options_now:
                self.apply(rng.choice(options_now))
                self.turn = 1 - self.turn
        self.weights = [rng.random() for _ in range(self.rows * self.columns * 2)]
        return self.view("Game start."), {"player_id": self.turn, "legal_moves": self.legal_moves()}

    # --- rules ---
    def forward(self, seat):
        return 1 if seat == 0 else -1

    def moves(self, seat):
        out = []
        me, them = SIDES[seat], SIDES[1 - seat]
        d = self.forward(seat)
        for r in range(self.rows):
            for c in range(self.columns):
                if self.cells[r][c] != me or not 0 <= r + d < self.rows:
                    continue
                for dc in (-1, 0, 1):
                    nc = c + dc
                    if not 0 <= nc < self.columns:
                        continue
                    target = self.cells[r + d][nc]
                    if target == "." or (dc != 0 and target == them):
                        out.append((r, c, r + d, nc))
        return out

    def apply(self, move):
        r, c, nr, nc = move
        captured = self.cells[nr][nc] != "."
        self.cells[nr][nc] = self.cells[r][c]
        self.cells[r][c] = "."
        return captured

    def wins_at_once(self, move):
        return move[2] in (0, self.rows - 1)

    def square(self, r, c):
        return f"{'abcdefgh'[c]}{r + 1}"

    def write(self, move):
        return f"{self.square(move[0], move[1])} {self.square(move[2], move[3])}"

    def legal_moves(self):
        return [self.write(m) for m in self.moves(self.turn)] + ["resign"]

    def count(self, side):
        return sum(row.count(side) for row in self.cells)

    def view(self, note):
        seat = self.turn
        lines = []
        for r in range(self.rows - 1, -1, -1):
            lines.append(f"{r + 1} " + " ".join(self.cells[r]))
        lines.append("  " + " ".join("abcdefgh"[: self.columns]))
        goal = self.rows if seat == 0 else 1
        return (
            f"{note}\nYou are player {seat} ({'White, W, moving up' if seat == 0 else 'Black, B, moving down'}); "
            f"reach row {goal} to win.\n" + "\n".join(lines) +
            f"\nLegal moves: {', '.join(self.legal_moves())}\nReply 'from to' (e.g. '{self.legal_moves()[0]}') "
            f"or 'resign'."
        )

    def end(self, mover, winner, note, extra=None):
        self.over = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "rewards": rewards, "winner": winner, "success": winner == mover}
        if extra:
            info.update(extra)
        return note, rewards[mover], True, False, info

    def parse(self, action):
        tokens = move_tokens(action, 60)
        if tokens == ["resign"]:
            return "resign"
        letters = "abcdefgh"
        squares = []
        for tok in tokens:
            if len(tok) >= 2 and tok[0] in letters and tok[1:].isdigit():
                squares.append((int(tok[1:]) - 1, letters.index(tok[0])))
            elif tok in letters:
                squares.append((None, letters.index(tok)))
            elif tok.isdigit() and squares and squares[-1][0] is None:
                squares[-1] = (int(tok) - 1, squares[-1][1])
            elif tok not in ("to", "x"):
                return None
        if len(squares) != 2 or any(s[0] is None for s in squares):
            return None
        return (squares[0][0], squares[0][1], squares[1][0], squares[1][1])

    def step(self, action):
        if self.over:
            return "The game is over.", 0.0, True, False, {"player_id": self.turn, "success": False}
        self.steps += 1
        seat = self.turn
        move = self.parse(action)
        if move == "resign":
            return self.end(seat, 1 - seat, f"Player {seat} resigns. Player {1 - seat} wins.")
        problem, format_error = None, None
        if move is None:
            problem = f"Could not read {safe_echo(action)!r}: write two squares like 'b2 b3', or 'resign'."
            format_error = "expected 'from to' squares such as b2 b3, or resign"
        elif move not in self.moves(seat):
            r, c, nr, nc = move
            inside = all(0 <= x < self.rows for x in (r, nr)) and all(0 <= x < self.columns for x in (c, nc))
            if not inside:
                problem = "That move leaves the board."
            elif self.cells[r][c] != SIDES[seat]:
                problem = f"There is no pawn of yours on {self.square(r, c)}."
            elif nr - r != self.forward(seat) or abs(nc - c) > 1:
                problem = "Pawns move exactly one row forward (straight or diagonal)."
            else:
                problem = "Pawns capture only diagonally and cannot move onto their own pawns."
        if problem is not None:
            self.strikes[seat] += 1
            if self.strikes[seat] >= INVALID_LIMIT:
                return self.end(seat, 1 - seat, f"{problem}\nPlayer {seat} made {INVALID_LIMIT} invalid moves in a "
                                f"row and forfeits.", {"action_is_valid": False, "format_error": format_error})
            if self.steps >= ENV_SPEC["max_turns"]:
                return self.end(seat, None, f"{problem}\nTurn limit reached: draw.", {"action_is_valid": False})
            left = INVALID_LIMIT - self.strikes[seat]
            return (self.view(f"{problem} ({left} more invalid moves in a row forfeit.)"), 0.0, False, False,
                    {"player_id": seat, "legal_moves": self.legal_moves(), "action_is_valid": False,
                     "format_error": format_error})
        self.strikes[seat] = 0
        self.apply(move)
        text = f"Player {seat} played {self.write(move)}."
        if self.wins_at_once(move) or self.count(SIDES[1 - seat]) == 0:
            return self.end(seat, seat, f"{text} Player {seat} breaks through and wins.")
        self.turn = 1 - seat
        if not self.moves(self.turn):
            return self.end(seat, seat, f"{text} Player {self.turn} has no legal move and loses.")
        if self.steps >= ENV_SPEC["max_turns"]:
            return self.end(seat, None, f"{text} Turn limit reached: draw.")
        return self.view(text), 0.0, False, False, {"player_id": self.turn, "legal_moves": self.legal_moves()}

    # --- helpers for the agent ---
    def attacked(self, seat, r, c):
        """True when a pawn of `seat` on (r, c) could be captured by the other side next move."""
        d = self.forward(1 - seat)
        for dc in (-1, 1):
            rr, cc = r - d, c + dc
            if 0 <= rr < self.rows and 0 <= cc < self.columns and self.cells[rr][cc] == SIDES[1 - seat]:
                return True
        return False

    def privileged_hint(self):
        seat = self.turn
        goal = self.rows - 1 if seat == 0 else 0
        runners = []
        for r in range(self.rows):
            for c in range(self.columns):
                if self.cells[r][c] == SIDES[1 - seat] and abs(r - (self.rows - 1 - goal)) <= 2:
                    runners.append(self.square(r, c))
        mine_close = sum(1 for r in range(self.rows) for c in range(self.columns)
                         if self.cells[r][c] == SIDES[seat] and abs(goal - r) <= 2)
        text = f"You have {self.count(SIDES[seat])} pawns, the opponent {self.count(SIDES[1 - seat])}. "
        if runners:
            text += f"Danger: enemy pawns within two rows of your home row: {', '.join(runners)}. "
        text += (f"You have {mine_close} pawn(s) within two rows of the goal. A pawn one row from the goal wins "
                 f"next move unless it is captured; keep your home row guarded.")
        return text

    def reference_action(self):
        if self.over:
            return "resign"
        seat = self.turn
        moves = self.moves(seat)
        if not moves:
            return "resign"
        best, best_score = moves[0], None
        them = SIDES[1 - seat]
        for m in moves:
            r, c, nr, nc = m
            if self.wins_at_once(m) or (self.cells[nr][nc] == them and self.count(them) == 1):
                return self.write(m)
            score = 0.0
            if self.cells[nr][nc] == them:
                score += 3
                enemy_danger = abs(nr - (0 if seat == 0 else self.rows - 1)) <= 2
                score += 4 if enemy_danger else 0
            saved = self.cells[nr][nc]
            self.cells[nr][nc], self.cells[r][c] = self.cells[r][c], "."
            if self.attacked(seat, nr, nc):
                score -= 2.5
            threats = [x for x in self.moves(1 - seat) if self.wins_at_once(x)]
            if threats:
                score -= 20
            self.cells[r][c], self.cells[nr][nc] = self.cells[nr][nc], saved
            score += 1.5 * self.weights[(r * self.columns + c + self.steps) % len(self.weights)]
            if best_score is None or score > best_score:
                best, best_score = m, score
        return self.write(best)
