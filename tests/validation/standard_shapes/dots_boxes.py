# shape: two-player board game (dots and boxes on a small grid), both seats played by the agent, with resign and forfeit
"""Dots and boxes on a 2-row grid of boxes for two seats played by the same policy."""

from spade_domains.games.verify import move_tokens, safe_echo, zero_sum_rewards

ENV_SPEC = {
    "name": "DotsAndBoxesSmall",
    "domain": "games",
    "description": (
        "Dots and boxes: seats take turns drawing a line between two neighbouring dots; completing the fourth "
        "side of a box scores it and the same seat must draw again. When every line is drawn the seat with more "
        "boxes wins (equal is a draw). A seat may resign; three invalid moves in a row forfeit."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 60,
    "players": 2,
    "difficulty": {
        "columns": {"min": 1, "max": 2, "default": 2, "description": "boxes per row (the grid has 2 rows)"},
        "opening_lines": {"min": 0, "max": 3, "default": 2,
                          "description": "random lines drawn alternately before play (this many or one more; no box completed)"},
    },
    "grounding": "Dots and boxes (Edouard Lucas, 1889): chains, double-crosses and the long-chain rule.",
    "tags": ["two-player", "zero-sum", "pencil-and-paper", "self-play"],
}

ROWS = 2
LETTERS = "abcd"
INVALID_LIMIT = 3
VALUES = {}


class DotsBoxes:
    def __init__(self, columns=2, opening_lines=2):
        self.columns = columns
        self.opening_lines = opening_lines
        self.lines = []
        self.box_sides = []
        self.drawn = 0
        self.owner = {}
        self.scores = [0, 0]
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        self.tie_order = []

    # lines are pairs of dots ((r1, c1), (r2, c2)); dot rows 0..ROWS, dot columns 0..columns
    def build(self):
        lines = []
        for r in range(ROWS + 1):
            for c in range(self.columns):
                lines.append(((r, c), (r, c + 1)))
        for r in range(ROWS):
            for c in range(self.columns + 1):
                lines.append(((r, c), (r + 1, c)))
        index = {line: k for k, line in enumerate(lines)}
        boxes = []
        for r in range(ROWS):
            for c in range(self.columns):
                boxes.append((index[((r, c), (r, c + 1))], index[((r + 1, c), (r + 1, c + 1))],
                              index[((r, c), (r + 1, c))], index[((r, c + 1), (r + 1, c + 1))]))
        return lines, boxes

    def completed_by(self, mask, k):
        return [b for b, sides in enumerate(self.box_sides)
                if k in sides and all((mask | 1 << k) >> s & 1 for s in sides)]

    def value(self, mask):
        """Best (boxes for the seat to move - boxes for the other) over the rest of the game."""
        key = (self.columns, mask)
        if key not in VALUES:
            best = None
            for k in range(len(self.lines)):
                if not mask >> k & 1:
                    gained = len(self.completed_by(mask, k))
                    rest = self.value(mask | 1 << k)
                    score = gained + rest if gained else -rest
                    if best is None or score > best:
                        best = score
            VALUES[key] = best if best is not None else 0
        return VALUES[key]

    def dot(self, d):
        return f"{LETTERS[d[1]]}{d[0] + 1}"

    def line_name(self, k):
        a, b = self.lines[k]
        return f"{self.dot(a)}-{self.dot(b)}"

    def reset(self, rng, options):
        self.lines, self.box_sides = self.build()
        self.drawn = 0
        self.owner = {}
        self.scores = [0, 0]
        self.player = 0
        self.invalid = [0, 0]
        self.done = False
        self.tie_order = list(range(len(self.lines)))
        rng.shuffle(self.tie_order)
        count = self.opening_lines + rng.randint(0, 1)  # drawn alternately, so either seat may move first
        for _ in range(count):
            free = [k for k in range(len(self.lines))
                    if not self.drawn >> k & 1 and not self.completed_by(self.drawn, k)]
            self.drawn |= 1 << rng.choice(free)
            self.player = 1 - self.player
        note = f"New game; the seats have already drawn {count} line(s) alternately." if count else "New game."
        return self.observation(note), {"player_id": self.player, "legal_moves": self.legal_moves()}

    def legal_moves(self):
        return [self.line_name(k) for k in range(len(self.lines)) if not self.drawn >> k & 1] + ["resign"]

    def render(self):
        cols = self.columns
        out = ["  " + "   ".join(LETTERS[:cols + 1])]
        for r in range(ROWS + 1):
            row = f"{r + 1} "
            for c in range(cols + 1):
                row += "o"
                if c < cols:
                    k = self.lines.index(((r, c), (r, c + 1)))
                    row += "---" if self.drawn >> k & 1 else "   "
            out.append(row)
            if r < ROWS:
                row = "  "
                for c in range(cols + 1):
                    k = self.lines.index(((r, c), (r + 1, c)))
                    row += "|" if self.drawn >> k & 1 else " "
                    if c < cols:
                        b = r * cols + c
                        row += f" {self.owner[b]} " if b in self.owner else "   "
                out.append(row)
        return "\n".join(out)

    def observation(self, note):
        p = self.player
        return (f"{note}\nYou are player {p}. Boxes: player 0 has {self.scores[0]}, player 1 has {self.scores[1]} "
                f"(of {len(self.box_sides)}).\n{self.render()}\nDots are named column letter + row number. Reply "
                f"with a line between two neighbouring dots, e.g. {self.legal_moves()[0]}, or 'resign'.")

    def finish(self, mover, winner, text):
        self.done = True
        rewards = zero_sum_rewards(winner)
        info = {"player_id": mover, "success": winner == mover, "rewards": rewards, "winner": winner,
                "boxes": list(self.scores)}
        return f"{text}\n{self.render()}", rewards[mover], True, False, info

    def reject(self, mover, message, format_error):
        self.invalid[mover] = self.invalid[mover] + 1
        if self.invalid[mover] >= INVALID_LIMIT:
            obs, reward, term, trunc, info = self.finish(
                mover, 1 - mover, f"{message}\nPlayer {mover} made {INVALID_LIMIT} invalid moves in a row and forfeits.")
            info["action_is_valid"] = False
            if format_error:
                info["format_error"] = format_error
            return obs, reward, term, trunc, info
        info = {"player_id": mover, "action_is_valid": False, "legal_moves": self.legal_moves()}
        if format_error:
            info["format_error"] = format_error
        return self.observation(message), 0.0, False, False, info

    def parse(self, action):
        tokens = move_tokens(action, 40)
        if len(tokens) != 4 or not tokens[1].isdigit() or not tokens[3].isdigit():
            return None
        dots = []
        for letter, number in ((tokens[0], tokens[1]), (tokens[2], tokens[3])):
            if len(letter) != 1 or letter not in LETTERS[:self.columns + 1] or not 1 <= int(number) <= ROWS + 1:
                return None
            dots.append((int(number) - 1, LETTERS.index(letter)))
        return tuple(sorted(dots))

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"player_id": self.player, "success": False,
                                                           "rewards": [0.0, 0.0], "winner": None}
        mover = self.player
        if move_tokens(action, 40) == ["resign"]:
            return self.finish(mover, 1 - mover, f"Player {mover} resigns; player {1 - mover} wins.")
        line = self.parse(action)
        if line is None:
            return self.reject(mover, f"Invalid move {safe_echo(action)!r}: name two dots, e.g. a1-b1, or 'resign'.",
                               "expected two dot names like a1-b1")
        if line not in self.lines:
            return self.reject(mover, f"{self.dot(line[0])} and {self.dot(line[1])} are not neighbouring dots.", None)
        k = self.lines.index(line)
        if self.drawn >> k & 1:
            return self.reject(mover, f"The line {self.line_name(k)} is already drawn.", None)
        self.invalid[mover] = 0
        boxes = self.completed_by(self.drawn, k)
        self.drawn |= 1 << k
        for b in boxes:
            self.owner[b] = str(mover)
        self.scores[mover] += len(boxes)
        if self.drawn == (1 << len(self.lines)) - 1:
            a, b = self.scores
            winner = None if a == b else (0 if a > b else 1)
            result = "draw" if winner is None else f"player {winner} wins"
            return self.finish(mover, winner, f"Player {mover} drew {self.line_name(k)}. All lines are drawn: "
                                              f"{a}-{b}, {result}.")
        note = f"Player {mover} drew {self.line_name(k)}"
        if boxes:
            note += f", completed {len(boxes)} box(es) and moves again."
        else:
            self.player = 1 - mover
            note += "."
        return self.observation(note), 0.0, False, False, {"player_id": self.player,
                                                           "legal_moves": self.legal_moves()}

    def privileged_hint(self):
        threes = sum(1 for b, sides in enumerate(self.box_sides)
                     if b not in self.owner and sum(self.drawn >> s & 1 for s in sides) == 3)
        if threes:
            return f"{threes} box(es) have three sides drawn: a fourth side scores and keeps the turn."
        return ("Avoid drawing a box's third side (it hands the box over); when only such moves remain, the "
                "long-chain rule decides who must open the chains.")

    def reference_action(self):
        if self.done:
            return "resign"
        best, best_k = None, None
        for k in self.tie_order:
            if not self.drawn >> k & 1:
                gained = len(self.completed_by(self.drawn, k))
                rest = self.value(self.drawn | 1 << k)
                score = gained + rest if gained else -rest
                if best is None or score > best:
                    best, best_k = score, k
        return self.line_name(best_k)
