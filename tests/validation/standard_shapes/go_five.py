# shape: two-player partisan board game on a small board, pass allowed, ends after two passes in a row, area-scored
"""Small-board Go for two seats played by the same policy; area scoring, positional superko, komi."""

import re

from spade_domains.games.verify import clean_move, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "TinyGoAreaScore",
    "domain": "games",
    "description": (
        "Go on a small board for two seats (Black = seat 0, White = seat 1). Play a stone on an empty point "
        "(e.g. 'C3') or 'pass'. Stones without liberties are captured; suicide and repeating an earlier whole-board "
        "position are illegal. Two passes in a row end the game; area scoring (stones + surrounded empty points) "
        "(no komi; equal areas draw). Three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 240,
    "players": 2,
    "difficulty": {
        "board_size": {"min": 4, "max": 6, "default": 5, "description": "the board is size x size points"},
        "opening_stones": {"min": 0, "max": 4, "default": 2,
                           "description": "random stones per colour placed before play (varied openings)"},
    },
    "grounding": "Go: liberties and capture, the suicide rule, positional superko, two passes end the game, "
                 "area (Chinese) scoring; equal areas are a draw (jigo).",
    "tags": ["two-player", "zero-sum", "board", "self-play", "go", "pass"],
}

COLUMNS = "ABCDEFGH"
COLOURS = ["B", "W"]
NAMES = ["Black", "White"]
KOMI = 0  # no komi: equal areas are a draw (jigo), which pays both seats 0
INVALID_LIMIT = 3
MOVE_RE = re.compile(r"^([a-h])\s*(\d)$")


class TinyGoAreaScore:
    def __init__(self, board_size=5, opening_stones=2):
        self.size = board_size
        self.opening_stones = opening_stones
        self.board = {}
        self.to_move = 0
        self.passes = 0
        self.history = set()
        self.invalid = [0, 0]
        self.steps = 0
        self.plies = 0
        self.captured = [0, 0]
        self.done = False
        self.noise = []

    # ----- board helpers -------------------------------------------------
    def points(self):
        return [(r, c) for r in range(self.size) for c in range(self.size)]

    def neighbours(self, point):
        r, c = point
        out = []
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= r + dr < self.size and 0 <= c + dc < self.size:
                out.append((r + dr, c + dc))
        return out

    def group(self, board, point):
        colour = board[point]
        stones, liberties, stack = {point}, set(), [point]
        while stack:
            for nb in self.neighbours(stack.pop()):
                if board[nb] == ".":
                    liberties.add(nb)
                elif board[nb] == colour and nb not in stones:
                    stones.add(nb)
                    stack.append(nb)
        return stones, liberties

    def key(self, board):
        return "".join(board[p] for p in self.points())

    def try_play(self, board, point, seat):
        """(new board, stones captured) or (None, reason)."""
        if board[point] != ".":
            return None, "that point is occupied"
        me, them = COLOURS[seat], COLOURS[1 - seat]
        new = dict(board)
        new[point] = me
        taken = 0
        for nb in self.neighbours(point):
            if new[nb] == them:
                stones, libs = self.group(new, nb)
                if not libs:
                    for s in stones:
                        new[s] = "."
                    taken = taken + len(stones)
        if not self.group(new, point)[1]:
            return None, "that move would be suicide (your stones would have no liberties)"
        if self.key(new) in self.history:
            return None, "that move repeats an earlier whole-board position (superko)"
        return new, taken

    def label(self, point):
        return f"{COLUMNS[point[1]]}{point[0] + 1}"

    def legal_points(self, seat):
        return [p for p in self.points() if self.board[p] == "." and self.try_play(self.board, p, seat)[0] is not None]

    def area(self):
        score = [0, 0]
        seen = set()
        for p in self.points():
            if self.board[p] in COLOURS:
                score[COLOURS.index(self.board[p])] += 1
            elif p not in seen:
                region, border, stack = {p}, set(), [p]
                while stack:
                    for nb in self.neighbours(stack.pop()):
                        if self.board[nb] == "." and nb not in region:
                            region.add(nb)
                            stack.append(nb)
                        elif self.board[nb] != ".":
                            border.add(self.board[nb])
                seen |= region
                if len(border) == 1:
                    score[COLOURS.index(border.pop())] += len(region)
        return score[0], score[1] + KOMI

    # ----- episode -------------------------------------------------------
    def reset(self, rng, options):
        self.board = {p: "." for p in self.points()}
        self.to_move = 0
        self.passes = 0
        self.invalid = [0, 0]
        self.steps = 0
        self.plies = 0
        self.captured = [0, 0]
        self.done = False
        self.history = {self.key(self.board)}
        for _ in range(self.opening_stones):
            for seat in (0, 1):
                free = [p for p in self.points() if self.board[p] == "."
                        and all(self.board[nb] == "." for nb in self.neighbours(p))]
                if free:
                    self.board[rng.choice(free)] = COLOURS[seat]
        self.history.add(self.key(self.board))
        self.noise = [rng.random() for _ in range(self.size * self.size * 4)]
        note = "Game start." if not self.opening_stones else "Game start after random opening stones."
        return self.observation(note), {"player_id": 0, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [self.label(p) for p in self.legal_points(self.to_move)] + ["pass"]

    def render(self):
        lines = []
        for r in range(self.size - 1, -1, -1):
            lines.append(f"{r + 1} " + " ".join(self.board[(r, c)] for c in range(self.size)))
        lines.append("  " + " ".join(COLUMNS[: self.size]))
        return "\n".join(lines)

    def observation(self, note):
        seat = self.to_move
        black, white = self.area()
        return (
            f"{note}\nYou are player {seat} ({NAMES[seat]}, '{COLOURS[seat]}'). Board (. = empty):\n{self.render()}\n"
            f"Area now: Black {black}, White {white} (komi {KOMI}). Captures: Black {self.captured[0]}, "
            f"White {self.captured[1]}. Consecutive passes: {self.passes} (two end the game).\n"
            f"Legal moves: {', '.join(self.legal_moves())}\nReply with a point such as C3, or 'pass'."
        )

    def finish(self, mover, note, winner=None, forfeit=False):
        self.done = True
        if not forfeit:
            black, white = self.area()
            winner = 0 if black > white else (1 if white > black else None)
            result = "A draw (equal areas)." if winner is None else f"{NAMES[winner]} wins."
            note = f"{note}\nFinal area: Black {black}, White {white}. {result}"
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "rewards": rewards, "winner": winner, "success": winner == mover}
        return f"{note}\nFinal board:\n{self.render()}", rewards[mover], True, False, info

    def reject(self, mover, message, format_error):
        self.invalid[mover] += 1
        if self.invalid[mover] >= INVALID_LIMIT:
            obs, reward, term, trunc, info = self.finish(
                mover, f"{message}\n{NAMES[mover]} made {INVALID_LIMIT} invalid moves in a row and forfeits.",
                winner=1 - mover, forfeit=True)
            info["action_is_valid"] = False
            info["format_error"] = format_error
            return obs, reward, term, trunc, info
        if self.steps >= ENV_SPEC["max_turns"]:
            return self.finish(mover, f"{message}\nTurn limit reached; the game is scored as it stands.")
        left = INVALID_LIMIT - self.invalid[mover]
        obs = self.observation(f"{message} ({left} more invalid moves in a row forfeit.)")
        return obs, 0.0, False, False, {"player_id": mover, "legal_moves": self.legal_moves(),
                                        "action_is_valid": False, "format_error": format_error}

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": self.to_move, "success": False}
        self.steps += 1
        mover = self.to_move
        move = clean_move(action, 60)
        if move is None or (move != "pass" and MOVE_RE.match(move) is None):
            return self.reject(mover, f"Invalid move {safe_echo(action)!r}: reply with a point like C3 or 'pass'.",
                               "expected a point such as C3, or pass")
        if move == "pass":
            self.passes += 1
            note = f"{NAMES[mover]} passed."
        else:
            found = MOVE_RE.match(move)
            col, row = COLUMNS.lower().index(found.group(1)), int(found.group(2)) - 1
            if col >= self.size or not 0 <= row < self.size:
                return self.reject(mover, f"{move.upper()} is off the {self.size}x{self.size} board.", None)
            new, result = self.try_play(self.board, (row, col), mover)
            if new is None:
                return self.reject(mover, f"{move.upper()} is illegal: {result}.", None)
            self.board = new
            self.history.add(self.key(new))
            self.captured[mover] += result
            self.passes = 0
            note = f"{NAMES[mover]} played {move.upper()}" + (f", capturing {result}." if result else ".")
        self.invalid[mover] = 0
        self.plies += 1
        if self.passes >= 2:
            return self.finish(mover, note + " Two passes in a row end the game.")
        if self.steps >= ENV_SPEC["max_turns"]:
            return self.finish(mover, note + " Turn limit reached; the game is scored as it stands.")
        self.to_move = 1 - mover
        return self.observation(note), 0.0, False, False, {"player_id": self.to_move,
                                                           "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        seat = self.to_move
        me, them = COLOURS[seat], COLOURS[1 - seat]
        ataris, weak, seen = [], [], set()
        for p in self.points():
            if self.board[p] in COLOURS and p not in seen:
                stones, libs = self.group(self.board, p)
                seen |= stones
                anchor = self.label(min(stones))
                if len(libs) == 1 and self.board[p] == them:
                    ataris.append(f"the {len(stones)}-stone {NAMES[1 - seat]} group at {anchor}")
                if len(libs) == 1 and self.board[p] == me:
                    weak.append(f"your {len(stones)}-stone group at {anchor}")
        black, white = self.area()
        lead = black - white if seat == 0 else white - black
        parts = [f"By area you are {'ahead' if lead > 0 else 'behind'} by {abs(lead)}."]
        if ataris:
            parts.append("In atari (one liberty left): " + "; ".join(ataris) + ".")
        if weak:
            parts.append("Your groups in atari: " + "; ".join(weak) + ".")
        parts.append("Never fill your own single-point eyes; pass only when every remaining move hurts you.")
        return " ".join(parts)

    def reference_action(self):
        if self.done:
            return "pass"
        seat = self.to_move
        me = COLOURS[seat]
        black, white = self.area()
        lead = black - white if seat == 0 else white - black
        if self.passes == 1 and lead > 0:
            return "pass"
        best, best_score = None, None
        for p in self.legal_points(seat):
            if all(self.board[nb] == me for nb in self.neighbours(p)):
                continue  # own eye
            new, taken = self.try_play(self.board, p, seat)
            libs = len(self.group(new, p)[1])
            score = 10 * taken + (-6 if libs == 1 else min(libs, 3)) + 2 * self.noise[
                (p[0] * self.size + p[1] + 7 * self.plies) % len(self.noise)]
            if best_score is None or score > best_score:
                best, best_score = p, score
        if best is None or best_score < -3:
            return "pass"
        return self.label(best)
