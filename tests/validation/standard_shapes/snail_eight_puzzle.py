# shape: a sliding puzzle solved by any move sequence, with an adaptive plan from the current state as the hint
"""The 8-puzzle with the snail goal (1 2 3 / 8 _ 4 / 7 6 5): each turn moves the gap one or more steps; any
sequence that reaches the goal within the move budget wins. The hint is a plan computed from the current board
(how far it is from the goal and which tiles are still out of place), so it follows whatever the agent did."""

from collections import deque

ENV_SPEC = {
    "name": "SnailEightPuzzle",
    "domain": "games",
    "description": "Slide the gap of a 3x3 tile puzzle (up, down, left, right) until the tiles spiral 1-8 round "
                   "the centre; any sequence within the move budget wins.",
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {"scramble": {"min": 4, "max": 20, "default": 10, "description": "random gap moves from the goal"}},
    "grounding": "The 8-puzzle: a position's distance to the goal is found by breadth-first search; only half of "
                 "all arrangements are reachable, so the scramble starts from the goal.",
    "tags": ["puzzle", "sliding-tiles", "planning", "adaptive-hint"],
}

GOAL = "1238_4765"
SHIFT = {"U": -3, "D": 3, "L": -1, "R": 1}


def slide(board, move):
    """The board after moving the gap one step, or None when the gap would leave the grid."""
    gap = board.index("_")
    if (move == "U" and gap < 3) or (move == "D" and gap > 5) or (move == "L" and gap % 3 == 0) or \
            (move == "R" and gap % 3 == 2):
        return None
    other = gap + SHIFT[move]
    cells = list(board)
    cells[gap], cells[other] = cells[other], "_"
    return "".join(cells)


def plan(board):
    """A shortest list of gap moves from ``board`` to the goal."""
    back = {board: None}
    queue = deque([board])
    while queue:
        here = queue.popleft()
        if here == GOAL:
            break
        for move in "UDLR":
            nxt = slide(here, move)
            if nxt is not None and nxt not in back:
                back[nxt] = (here, move)
                queue.append(nxt)
    moves, here = [], GOAL
    while back[here] is not None:
        here, move = back[here]
        moves.append(move)
    return moves[::-1]


class SnailEightPuzzle:
    def __init__(self, scramble=10):
        self.scramble = scramble
        self.board = GOAL
        self.budget = 0
        self.route = []
        self.done = False

    def reset(self, rng, options):
        self.board = GOAL
        while len(plan(self.board)) < 3:
            for _ in range(self.scramble):
                self.board = slide(self.board, rng.choice("UDLR")) or self.board
        self.route = plan(self.board)
        self.budget = 2 * len(self.route) + 8
        self.done = False
        return self._text("A scrambled puzzle."), {}

    def _text(self, news):
        rows = [" ".join(self.board[i:i + 3]) for i in (0, 3, 6)]
        return (f"{news}\n" + "\n".join(rows) + "\nGoal:\n1 2 3\n8 _ 4\n7 6 5\nMove the gap with U, D, L or R "
                f"(several letters in one reply are played in order, e.g. ULD). Moves left: {self.budget}.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        moves = action.strip().upper().replace(" ", "").replace(",", "")
        if not moves or len(moves) > 40 or any(m not in SHIFT for m in moves):
            info = {"success": False, "format_error": "expected letters U, D, L, R", "action_is_valid": False}
            return self._text("Reply with the letters U, D, L, R."), 0.0, False, False, info
        for move in moves:
            nxt = slide(self.board, move)
            if nxt is None:
                info = {"success": False, "action_is_valid": False}
                return self._text(f"The gap cannot move {move} there; nothing from {move} on was played."), 0.0, \
                    False, False, info
            self.board = nxt
            self.budget = self.budget - 1
            if self.board == GOAL:
                self.done = True
                return "Solved.", 1.0, True, False, {"success": True}
            if self.budget == 0:
                self.done = True
                return "No moves left.", 0.0, True, False, {"success": False}
        self.route = plan(self.board)
        return self._text(f"Played {moves}."), 0.0, False, False, {"success": False}

    def privileged_hint(self):
        wrong = sum(1 for a, b in zip(self.board, GOAL) if a != b and a != "_")
        return (f"From here the goal is {len(self.route)} gap moves away and {wrong} tiles are out of place. Put "
                "tiles 1 to 3 in the top row first, then walk the rest round the ring without disturbing them.")

    def reference_action(self):
        return self.route[0] if self.route else "U"
