# shape: one-player Guarini knight swap on a 4x3 board ('b1-c3'), budget the fewest moves plus slack
"""Guarini's knight-swap puzzle generalised: exchange white and black knights on a 4x3 board."""

from collections import deque

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "GuariniKnightSwap",
    "domain": "games",
    "description": (
        "White (N) and black (n) knights stand on a board with files a-d and ranks 1-3. Exchange them: every "
        "square that starts with a white knight must end with a black one and vice versa. Any knight may move on "
        "any turn, with an ordinary chess knight's jump to an empty square; moves are written 'b1-c3'. Finish "
        "within the move budget (the fewest moves possible plus a small slack)."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "knights": {"min": 2, "max": 3, "default": 2, "description": "knights of each colour"},
        "slack": {"min": 0, "max": 4, "default": 2, "description": "moves allowed beyond the optimum"},
    },
    "grounding": (
        "Guarini's problem (1512): swap two white and two black knights on a 3x3 board; solved by 'unravelling' "
        "the knight-move graph into a cycle. Here the board is 4x3 and the start squares vary."
    ),
    "tags": ["puzzle", "planning", "chess", "single-player"],
}

FILES = "abcd"
RANKS = 3
SQUARES = [(f, r) for r in range(RANKS) for f in range(4)]
JUMPS = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]


def index(f, r):
    return r * 4 + f


def neighbours(i):
    f, r = i % 4, i // 4
    out = []
    for df, dr in JUMPS:
        g, s = f + df, r + dr
        if 0 <= g < 4 and 0 <= s < RANKS:
            out.append(index(g, s))
    return out


def successors(board):
    for i in range(12):
        if board[i] == ".":
            continue
        for j in neighbours(i):
            if board[j] == ".":
                b = list(board)
                b[j], b[i] = b[i], "."
                yield (i, j), "".join(b)


def name(i):
    return f"{FILES[i % 4]}{i // 4 + 1}"


class GuariniKnightSwap:
    def __init__(self, knights=2, slack=2):
        self.k = knights
        self.slack = slack
        self.board = "." * 12
        self.goal = "." * 12
        self.dist = {}
        self.budget = 0
        self.used = 0
        self.done = False
        self.tie = list(range(12))

    def reset(self, rng, options):
        while True:
            cells = ["N"] * self.k + ["n"] * self.k + ["."] * (12 - 2 * self.k)
            rng.shuffle(cells)
            start = "".join(cells)
            goal = "".join("n" if c == "N" else "N" if c == "n" else "." for c in start)
            dist = {goal: 0}
            queue = deque([goal])
            while queue:
                b = queue.popleft()
                for _, nb in successors(b):
                    if nb not in dist:
                        dist[nb] = dist[b] + 1
                        queue.append(nb)
            if start in dist and dist[start] >= 5:
                break
        self.board, self.goal, self.dist = start, goal, dist
        self.budget = dist[start] + self.slack
        self.used = 0
        self.done = False
        self.tie = rng.sample(list(range(12)), 12)
        obs = (
            f"Swap the knights: white N and black n must trade squares (target below) in at most {self.budget} "
            f"moves. Any knight may move each turn, a chess knight's jump to an empty square, written like "
            f"'b1-c3'.\n{self.render()}"
        )
        return obs, {"moves_left": self.budget}

    def grid(self, board):
        rows = []
        for r in range(RANKS - 1, -1, -1):
            rows.append(f"{r + 1} " + " ".join(board[index(f, r)] for f in range(4)))
        rows.append("  a b c d")
        return "\n".join(rows)

    def render(self):
        return (f"Now:\n{self.grid(self.board)}\nTarget:\n{self.grid(self.goal)}\n"
                f"Moves used {self.used}/{self.budget}.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        text = "".join(t for t in move_tokens(action, 40) if t not in ("to", "move", "n", "knight"))
        ok = len(text) == 4 and text[0] in FILES and text[2] in FILES and text[1] in "123" and text[3] in "123"
        if not ok:
            obs = f"Cannot read {safe_echo(action)!r}: write a move like 'b1-c3'.\n{self.render()}"
            return obs, 0.0, False, False, {"format_error": "expected FROM-TO squares such as 'b1-c3'",
                                            "moves_left": self.budget - self.used}
        i = index(FILES.index(text[0]), int(text[1]) - 1)
        j = index(FILES.index(text[2]), int(text[3]) - 1)
        if self.board[i] == ".":
            why = f"there is no knight on {name(i)}"
        elif j not in neighbours(i):
            why = f"{name(i)} to {name(j)} is not a knight's jump"
        elif self.board[j] != ".":
            why = f"{name(j)} is occupied"
        else:
            why = ""
        if why:
            return f"Illegal: {why}.\n{self.render()}", 0.0, False, False, {"action_is_valid": False,
                                                                         "moves_left": self.budget - self.used}
        b = list(self.board)
        b[j], b[i] = b[i], "."
        self.board = "".join(b)
        self.used = self.used + 1
        if self.board == self.goal:
            self.done = True
            return f"Swapped in {self.used} moves!\n{self.grid(self.board)}", 1.0, True, False, {"success": True}
        if self.used >= self.budget:
            self.done = True
            return f"Out of moves.\n{self.render()}", 0.0, True, False, {"success": False}
        return f"Moved {name(i)}-{name(j)}.\n{self.render()}", 0.0, False, False, \
            {"success": False, "moves_left": self.budget - self.used}

    def privileged_hint(self):
        spare = self.budget - self.used - self.dist.get(self.board, 0)
        return (
            "Unravel the board: draw the knight-move graph (squares joined by knight jumps) as a loop or chain; on "
            "it knights can only slide past empty squares, never past each other, so each colour must travel "
            "around the same way. " + ("You have no move to spare." if spare <= 0 else "You have a little slack.")
        )

    def reference_action(self):
        if self.done:
            return "a1-b3"
        here = self.dist.get(self.board)
        best = None
        for (i, j), nb in successors(self.board):
            d = self.dist.get(nb)
            if d is not None and here is not None and d == here - 1:
                key = (self.tie[i], self.tie[j])
                if best is None or key > best[0]:
                    best = (key, i, j)
        if best is None:
            return "a1-b3"
        return f"{name(best[1])}-{name(best[2])}"
