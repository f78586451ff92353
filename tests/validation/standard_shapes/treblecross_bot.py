# shape: two-player classic vs perfect bot, learner either seat (1-D tic-tac-toe, impartial; resign/forfeit stated).
"""Treblecross (one-dimensional tic-tac-toe) against a perfect bot; the learner may hold either seat."""

from spade_domains.games.verify import move_tokens, safe_echo

ENV_SPEC = {
    "name": "TreblecrossBot",
    "domain": "games",
    "description": (
        "Treblecross against a perfect bot: a single row of cells numbered 1..n; both sides place the same mark X "
        "in any empty cell, and whoever first makes three X's in adjacent cells (a row of three, no wrapping "
        "around the ends) wins. A few X's are already on the board and you may be first or second to move; the "
        "start always gives the side you play a forced win. Reply with a cell number, or 'resign' (a loss). "
        "Three invalid replies in a row forfeit (a loss). Win +1, loss -1."
    ),
    "reward_range": [-1.0, 1.0],
    "max_turns": 20,
    "players": 1,
    "difficulty": {
        "board_length": {"min": 9, "max": 15, "default": 12,
                         "description": "number of cells in the row (longer rows need deeper look-ahead)"},
    },
    "grounding": "Treblecross: the impartial game of one-dimensional tic-tac-toe in which both players play X.",
    "tags": ["two-player", "vs-bot", "impartial", "combinatorial-game"],
}

INVALID_LIMIT = 3
MEMO = {}


def makes_three(board, i):
    """True when an X at cell i is part of three adjacent X's on the row (no wrap-around)."""
    n = len(board)
    for a in (i - 2, i - 1, i):
        c = a + 2
        if a >= 0 and c < n and all(board[j] == "X" or j == i for j in (a, a + 1, c)):
            return True
    return False


def wins_to_move(board):
    """Whether the side to move on this row has a forced win."""
    key = "".join(board)
    if key not in MEMO:
        result = False
        for i in range(len(board)):
            if board[i] == ".":
                if makes_three(board, i):
                    result = True
                    break
                board[i] = "X"
                lose_next = not wins_to_move(board)
                board[i] = "."
                if lose_next:
                    result = True
                    break
        MEMO[key] = result
    return MEMO[key]


def hands_three(board, i):
    """True when an X at i lets the next player complete three at once."""
    board[i] = "X"
    bad = any(board[j] == "." and makes_three(board, j) for j in range(len(board)))
    board[i] = "."
    return bad


class TreblecrossBot:
    def __init__(self, board_length=12):
        self.n = board_length
        self.board = ["."] * self.n
        self.order = list(range(self.n))
        self.invalid = 0
        self.done = False
        self.learner_first = True
        self.last_bot = None

    def reset(self, rng, options):
        self.board = ["."] * self.n
        self.order = rng.sample(list(range(self.n)), self.n)
        self.invalid = 0
        self.done = False
        self.last_bot = None
        for _ in range(500):
            board = ["."] * self.n
            for _ in range(rng.randint(1, 2)):
                free = [i for i in range(self.n)
                        if all(board[j] == "." for j in range(max(0, i - 2), min(self.n, i + 3)))]
                if free:
                    board[rng.choice(free)] = "X"
            first = rng.random() < 0.5
            if wins_to_move(board) == first:
                self.board = board
                self.learner_first = first
                break
        note = "You move first."
        if not self.learner_first:
            cell = self.bot_move()
            self.board[cell] = "X"
            self.last_bot = cell
            note = f"The bot moved first and placed X on cell {cell + 1}."
        return self.observation(note), {"legal_moves": self.legal_moves(), "learner_first": self.learner_first}

    def legal_moves(self):
        return [str(i + 1) for i in range(self.n) if self.board[i] == "."]

    def render(self):
        cells = " ".join(f"{i + 1}:{self.board[i]}" for i in range(self.n))
        return f"Row: {cells}"

    def observation(self, note):
        return (f"{note}\n{self.render()}\nReply with the number of an empty cell (.) to place an X, "
                f"or 'resign'. Three X's in adjacent cells win for whoever places the third.")

    def bot_move(self):
        best, best_cell = None, -1
        for i in self.order:
            if self.board[i] != ".":
                continue
            if makes_three(self.board, i):
                return i
            self.board[i] = "X"
            value = not wins_to_move(self.board)
            self.board[i] = "."
            score = (value, not hands_three(self.board, i))
            if best is None or score > best:
                best, best_cell = score, i
        return best_cell

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
        extra["legal_moves"] = self.legal_moves()
        extra["success"] = False
        left = INVALID_LIMIT - self.invalid
        return self.observation(f"{message} ({left} more invalid replies forfeit.)"), 0.0, False, False, extra

    def step(self, action):
        if self.done:
            return "The game is over.", 0.0, True, False, {"success": False, "legal_moves": []}
        tokens = move_tokens(action, 60)
        if tokens == ["resign"]:
            return self.finish(False, "You resigned; the bot wins.", {})
        nums = [t for t in tokens if t.lstrip("-").isdigit()]
        if len(tokens) != 1 or len(nums) != 1:
            return self.reject(f"Could not read {safe_echo(action)!r}: reply with one cell number 1-{self.n} "
                               f"or 'resign'.", f"expected one cell number 1-{self.n} or 'resign'")
        cell = int(nums[0]) - 1
        if not 0 <= cell < self.n:
            return self.reject(f"Cell {cell + 1} is off the row (cells are 1-{self.n}).", None)
        if self.board[cell] != ".":
            return self.reject(f"Cell {cell + 1} already holds an X; choose an empty cell.", None)
        self.invalid = 0
        if makes_three(self.board, cell):
            self.board[cell] = "X"
            return self.finish(True, f"You placed X on cell {cell + 1} and made three in a row. You win!", {})
        self.board[cell] = "X"
        bot = self.bot_move()
        three = makes_three(self.board, bot)
        self.board[bot] = "X"
        self.last_bot = bot
        if three:
            return self.finish(False, f"You placed X on cell {cell + 1}; the bot placed X on cell {bot + 1} and "
                                      f"made three in a row. The bot wins.", {})
        obs = self.observation(f"You placed X on cell {cell + 1}; the bot placed X on cell {bot + 1}.")
        return obs, 0.0, False, False, {"legal_moves": self.legal_moves(), "success": False,
                                        "action_is_valid": True}

    def privileged_hint(self):
        if self.done:
            return "The game is over."
        if any(self.board[i] == "." and makes_three(self.board, i) for i in range(self.n)):
            return "A three is available to complete this turn: look for two X's with a gap or side by side."
        safe = [i for i in range(self.n) if self.board[i] == "." and not hands_three(self.board, i)]
        return (f"{len(safe)} empty cells are safe (an X there does not let the bot complete three next turn); "
                f"every other cell loses at once. Once only safe cells matter, the game is a parity fight: "
                f"move so that the bot is the one who runs out of safe cells, splitting the open stretches "
                f"into pieces whose safe moves pair up.")

    def reference_action(self):
        if self.done:
            return "1"
        fallback = None
        for i in self.order:
            if self.board[i] != ".":
                continue
            if makes_three(self.board, i):
                return str(i + 1)
        for i in self.order:
            if self.board[i] != ".":
                continue
            self.board[i] = "X"
            good = not wins_to_move(self.board)
            self.board[i] = "."
            if good:
                return str(i + 1)
            if fallback is None:
                fallback = i
        return str((fallback if fallback is not None else 0) + 1)
