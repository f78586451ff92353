# shape: two-player connection game (Hex 3x3) vs perfect bot, learner Red or Blue and first or second by seed; ...
"""Hex on a 3x3 rhombus against a perfect bot; the learner plays Red or Blue, drawn per seed."""

from collections import deque

from spade_domains.games.verify import clean_move, safe_echo

ENV_SPEC = {
    "name": "HexThreeBot",
    "domain": "games",
    "description": (
        "Hex on a 3x3 rhombus against a perfect bot. Cells are named by column letter a-c and row number 1-3 "
        "(a1 top-left, c3 bottom-right). Each cell touches up to six others: the cells left and right in its row, "
        "the cell above and the one above-right, the cell below and the one below-left. Red joins the top row to "
        "the bottom row, Blue joins the left column to the right column; draws are impossible. Some stones are "
        "already placed and you may be Red or Blue; the start always gives your side a forced win. Players "
        "alternate placing one stone on an empty cell; there is no passing. Reply with a cell such as 'b2', or "
        "'resign' (a loss). Three invalid replies in a row forfeit. Win +1, loss -1."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 15,
    "players": 1,
    "difficulty": {
        "stones_placed": {"min": 0, "max": 3, "default": 2,
                          "description": "stones placed before play (fewer stones leave a deeper game)"},
    },
    "grounding": "Hex (Hein 1942, Nash 1948): connection game on a rhombus of hexagons; it can never end drawn.",
    "tags": ["two-player", "vs-bot", "connection-game", "board"],
}

N = 3
COLS = "abc"
INVALID_LIMIT = 3
MEMO = {}
DIRS = [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)]


def nbrs(cell):
    r, c = divmod(cell, N)
    return [(r + dr) * N + c + dc for dr, dc in DIRS if 0 <= r + dr < N and 0 <= c + dc < N]


def connected(board, colour):
    if colour == "R":
        starts = [c for c in range(N) if board[c] == "R"]
        def goal(cell):
            return cell // N == N - 1
    else:
        starts = [r * N for r in range(N) if board[r * N] == "B"]
        def goal(cell):
            return cell % N == N - 1
    seen, queue = set(starts), deque(starts)
    while queue:
        cur = queue.popleft()
        if goal(cur):
            return True
        for nb in nbrs(cur):
            if nb not in seen and board[nb] == colour:
                seen.add(nb)
                queue.append(nb)
    return False


def wins_to_move(board, colour):
    key = "".join(board) + colour
    if key not in MEMO:
        other = "B" if colour == "R" else "R"
        result = False
        for i in range(N * N):
            if board[i] == ".":
                board[i] = colour
                ok = connected(board, colour) or not wins_to_move(board, other)
                board[i] = "."
                if ok:
                    result = True
                    break
        MEMO[key] = result
    return MEMO[key]


def distance(board, colour):
    """Fewest more stones `colour` needs to connect its sides (0-1 BFS over cells)."""
    inf = 99
    dist = [inf] * (N * N)
    dq = deque()
    for k in range(N):
        cell = k if colour == "R" else k * N
        if board[cell] == colour or board[cell] == ".":
            dist[cell] = 0 if board[cell] == colour else 1
            dq.append(cell)
    best = inf
    while dq:
        cur = dq.popleft()
        if (colour == "R" and cur // N == N - 1) or (colour == "B" and cur % N == N - 1):
            best = min(best, dist[cur])
        for nb in nbrs(cur):
            if board[nb] in (colour, "."):
                d = dist[cur] + (0 if board[nb] == colour else 1)
                if d < dist[nb]:
                    dist[nb] = d
                    dq.append(nb)
    return best


class HexThreeBot:
    def __init__(self, stones_placed=2):
        self.stones = stones_placed
        self.board = ["."] * (N * N)
        self.me = "R"
        self.order = list(range(N * N))
        self.invalid = 0
        self.done = False

    def name(self, cell):
        return f"{COLS[cell % N]}{cell // N + 1}"

    def reset(self, rng, options):
        self.order = rng.sample(list(range(N * N)), N * N)
        self.invalid = 0
        self.done = False
        for _ in range(400):
            board = ["."] * (N * N)
            colours = ["R", "B"] * 2
            for k in range(self.stones):
                free = [i for i in range(N * N) if board[i] == "."]
                board[rng.choice(free)] = colours[k]
            me = rng.choice(["R", "B"])
            first = rng.choice(["R", "B"])
            if connected(board, "R") or connected(board, "B"):
                continue
            bot = "B" if me == "R" else "R"
            if first == me and wins_to_move(board, me):
                break
            if first == bot and not wins_to_move(board, bot):
                break
        self.board, self.me = board, me
        note = "You move first."
        if first != me:
            cell = self.bot_move()
            self.board[cell] = self.bot
            note = f"The bot ({self.bot}) moved first: {self.name(cell)}."
        return self.observation(note), {"legal_moves": self.legal_moves(), "colour": self.me, "success": False}

    @property
    def bot(self):
        return "B" if self.me == "R" else "R"

    def legal_moves(self):
        return [self.name(i) for i in range(N * N) if self.board[i] == "."]

    def render(self):
        lines = ["    " + "   ".join(COLS)]
        for r in range(N):
            lines.append(" " * (2 * r) + f"{r + 1}   " + "   ".join(self.board[r * N:(r + 1) * N]))
        return "\n".join(lines)

    def observation(self, note):
        goal = "top row to bottom row" if self.me == "R" else "left column to right column"
        return (f"{note}\nYou are {'Red (R)' if self.me == 'R' else 'Blue (B)'}: join the {goal}.\n"
                f"{self.render()}\nReply with an empty cell (.) such as 'b2', or 'resign'.")

    def bot_move(self):
        fallback = None
        for i in self.order:
            if self.board[i] == ".":
                self.board[i] = self.bot
                good = connected(self.board, self.bot) or not wins_to_move(self.board, self.me)
                self.board[i] = "."
                if good:
                    return i
                if fallback is None or self.bot_score(i) > self.bot_score(fallback):
                    fallback = i
        return fallback

    def bot_score(self, i):
        self.board[i] = self.bot
        score = distance(self.board, self.me)
        self.board[i] = "."
        return score

    def finish(self, won, text, extra):
        self.done = True
        info = {"success": won, "winner": 0 if won else 1, "legal_moves": []}
        info.update(extra)
        return f"{text}\n{self.render()}", (1.0 if won else -1.0), True, False, info

    def reject(self, message, format_error):
        self.invalid = self.invalid + 1
        extra = {"action_is_valid": False}
        if format_error:
            extra["format_error"] = format_error
        if self.invalid >= INVALID_LIMIT:
            return self.finish(False, f"{message}\n{INVALID_LIMIT} invalid replies in a row: you forfeit.", extra)
        extra.update({"legal_moves": self.legal_moves(), "success": False})
        return self.observation(f"{message} ({INVALID_LIMIT - self.invalid} more invalid replies forfeit.)"), \
            0.0, False, False, extra

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "legal_moves": []}
        move = clean_move(action, 40)
        if move == "resign":
            return self.finish(False, "You resigned; the bot wins.", {})
        if move is None or len(move) != 2 or move[0] not in "abcdefghij" or not move[1].isdigit():
            return self.reject(f"Could not read {safe_echo(action)!r}: reply with a cell like 'b2' or 'resign'.",
                               "expected a cell: column letter a-c then row number 1-3")
        c, r = "abcdefghij".index(move[0]), int(move[1]) - 1
        if not (0 <= c < N and 0 <= r < N):
            return self.reject(f"{move} is off the 3x3 board.", None)
        cell = r * N + c
        if self.board[cell] != ".":
            return self.reject(f"{move} is occupied.", None)
        self.invalid = 0
        self.board[cell] = self.me
        if connected(self.board, self.me):
            return self.finish(True, f"You played {move} and connected your sides. You win!", {})
        bot = self.bot_move()
        self.board[bot] = self.bot
        if connected(self.board, self.bot):
            return self.finish(False, f"You played {move}; the bot played {self.name(bot)} and connected. "
                                      f"The bot wins.", {})
        obs = self.observation(f"You played {move}; the bot played {self.name(bot)}.")
        return obs, 0.0, False, False, {"legal_moves": self.legal_moves(), "success": False,
                                        "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        mine, theirs = distance(self.board, self.me), distance(self.board, self.bot)
        return (f"You need at least {mine} more stone(s) to connect; the bot needs {theirs}. A cell that lies on "
                f"the bot's shortest paths and on yours does double duty. Two of your stones that share two "
                f"empty common neighbours (a bridge) cannot be cut apart.")

    def reference_action(self):
        if self.done:
            return "a1"
        fallback = None
        for i in self.order:
            if self.board[i] == ".":
                self.board[i] = self.me
                good = connected(self.board, self.me) or not wins_to_move(self.board, self.bot)
                self.board[i] = "."
                if good:
                    return self.name(i)
                if fallback is None:
                    fallback = i
        return self.name(fallback if fallback is not None else 0)
