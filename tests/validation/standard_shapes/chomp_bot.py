# shape: Chomp against a scripted perfect bot from a partly eaten bar ('take c3'), always a winnable start
"""Chomp against a scripted opponent: eat from a partly eaten chocolate bar and leave the bot the poisoned square."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "ChompPoisonBar",
    "domain": "games",
    "description": (
        "Chomp against a scripted bot on a partly eaten chocolate bar. Squares are named by column letter and "
        "row number (a1 is the poisoned bottom-left square). Taking a square also eats every square above it, "
        "to its right, and above-right of it. You move first, then the bot. Whoever leaves only the poisoned "
        "square for the other side wins (the other must eat it). Eating a1 yourself loses at once."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 30,
    "players": 1,
    "difficulty": {
        "columns": {"min": 4, "max": 7, "default": 5, "description": "width of the bar (columns a..)"},
        "rows": {"min": 3, "max": 5, "default": 4, "description": "height of the bar"},
    },
    "grounding": (
        "Chomp (Gale 1974; Schuh 1952): a poset game on a rectangle of squares; the first player wins the full "
        "rectangle by strategy stealing, but partly eaten bars can be losses for the side to move."
    ),
    "tags": ["scripted-opponent", "combinatorial-game", "single-player", "grid"],
}

LETTERS = "abcdefg"
VALUES = {}  # pure cache: column heights -> True when the side to move wins


def moves_of(h):
    out = []
    for c in range(len(h)):
        for r in range(h[c]):
            if c == 0 and r == 0:
                continue
            out.append((c, r))
    return out


def take(h, c, r):
    return tuple(min(x, r) if j >= c else x for j, x in enumerate(h))


def wins(h):
    """True when the side to move from heights h (a1 still there) can force the opponent onto a1."""
    if h not in VALUES:
        VALUES[h] = any(not wins(take(h, c, r)) for c, r in moves_of(h))
    return VALUES[h]


class ChompPoisonBar:
    def __init__(self, columns=5, rows=4):
        self.cols = columns
        self.rows = rows
        self.heights = tuple([rows] * columns)
        self.done = False
        self.tie = []
        self.turn = 0

    def reset(self, rng, options):
        self.done = False
        self.turn = 0
        while True:
            h = []
            top = self.rows
            for _ in range(self.cols):
                top = rng.randint(max(0, top - 2), top)
                h.append(top)
            h[0] = max(h[0], 2)
            h = tuple(h)
            if sum(h) >= self.cols + self.rows and wins(h):
                break
        self.heights = h
        self.tie = rng.sample(list(range(self.cols * self.rows)), self.cols * self.rows)
        obs = (
            "Chomp vs bot. 'take c3' eats c3 and every square above and/or to its right. a1 is poisoned; leave "
            f"the bot only a1 to win.\n{self.render()}\nYour move."
        )
        return obs, {"squares": sum(self.heights)}

    def render(self):
        lines = []
        for r in range(self.rows - 1, -1, -1):
            cells = []
            for c in range(self.cols):
                if self.heights[c] > r:
                    cells.append("P" if (c, r) == (0, 0) else "#")
                else:
                    cells.append(".")
            lines.append(f"{r + 1} " + " ".join(cells))
        lines.append("  " + " ".join(LETTERS[: self.cols]))
        return "Bar (# = chocolate, P = poisoned a1, . = eaten):\n" + "\n".join(lines)

    def order(self, moves):
        return sorted(moves, key=lambda m: self.tie[m[0] * self.rows + m[1]])

    def bot_move(self):
        moves = self.order(moves_of(self.heights))
        for c, r in moves:
            if not wins(take(self.heights, c, r)):
                return (c, r)
        # losing: eat as little as possible to prolong the game
        return min(moves, key=lambda m: sum(self.heights) - sum(take(self.heights, m[0], m[1])))

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False}
        toks = move_tokens(action, 40)
        toks = [t for t in toks if t not in ("take", "eat")]
        square = "".join(toks)
        if len(square) < 2 or square[0] not in LETTERS or not square[1:].isdigit():
            return (f"Cannot read {safe_echo(action)!r}: reply 'take c3' (column letter, row number).\n"
                    f"{self.render()}", 0.0, False, False, {"format_error": "expected 'take <letter><number>'"})
        c, r = LETTERS.index(square[0]), int(square[1:]) - 1
        if c >= self.cols or r < 0 or r >= self.rows or self.heights[c] <= r:
            return (f"{square} is not on the bar (already eaten or outside).\n{self.render()}", 0.0, False, False,
                    {"action_is_valid": False})
        if (c, r) == (0, 0):
            self.done = True
            return "You ate the poisoned square. You lose.", 0.0, True, False, {"success": False}
        self.heights = take(self.heights, c, r)
        self.turn = self.turn + 1
        if self.heights == tuple([1] + [0] * (self.cols - 1)):
            self.done = True
            return f"You took {square}. Only a1 is left: the bot must eat it. You win!", 1.0, True, False, \
                {"success": True}
        bc, br = self.bot_move()
        self.heights = take(self.heights, bc, br)
        name = f"{LETTERS[bc]}{br + 1}"
        if self.heights == tuple([1] + [0] * (self.cols - 1)):
            self.done = True
            return (f"You took {square}; the bot took {name}. Only a1 is left for you: you lose.\n{self.render()}",
                    0.0, True, False, {"success": False})
        return (f"You took {square}; the bot took {name}.\n{self.render()}\nYour move.", 0.0, False, False,
                {"success": False})

    def privileged_hint(self):
        return (
            "Aim to hand the bot a losing shape. Known losing shapes for the side to move: two rows where the bottom "
            "row is one square longer than the top row; an L whose two arms (beyond a1) are equal; and a2 plus b1 "
            "only. A move that eats a lot can leave the bot a winning reply, so check its answers."
        )

    def reference_action(self):
        if self.done:
            return "take a1"
        moves = self.order(moves_of(self.heights))
        for c, r in moves:
            if not wins(take(self.heights, c, r)):
                return f"take {LETTERS[c]}{r + 1}"
        c, r = moves[0] if moves else (0, 0)
        return f"take {LETTERS[c]}{r + 1}"
