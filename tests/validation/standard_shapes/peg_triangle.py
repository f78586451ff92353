# shape: single-player planning puzzle with feedback every turn (peg solitaire on the 15-hole triangle, with undo)
"""Peg solitaire on the 15-hole triangular board (the 'Cracker Barrel' puzzle)."""

from spade_domains.games.verify import move_integers, move_tokens, safe_echo

ENV_SPEC = {
    "name": "TrianglePegSolitaire",
    "domain": "games",
    "description": (
        "Peg solitaire on a triangle of 15 holes, one of them empty at the start. A move jumps a peg over an "
        "adjacent peg, in a straight line, into an empty hole; the jumped peg is removed. Finish with at most the "
        "goal number of pegs. 'undo' takes back the last jump (it costs a turn)."
    ),
    "reward_range": [0.0, 1.0],
    "max_turns": 40,
    "players": 1,
    "difficulty": {
        "goal_pegs": {"min": 1, "max": 3, "default": 1, "description": "pegs allowed to remain at the end"},
    },
    "grounding": "Triangular peg solitaire: 15 holes in 5 rows, jumps along the three directions of the triangle.",
    "tags": ["puzzle", "planning", "single-player"],
}

ROWS = 5
HOLES = [(r, c) for r in range(ROWS) for c in range(r + 1)]
NUMBER = {h: k + 1 for k, h in enumerate(HOLES)}
DIRS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))
JUMPS = []  # (from, over, to) as hole numbers
for (r, c) in HOLES:
    for dr, dc in DIRS:
        over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
        if over in NUMBER and to in NUMBER:
            JUMPS.append((NUMBER[(r, c)], NUMBER[over], NUMBER[to]))
SOLVABLE = {}


def bit(k):
    return 1 << (k - 1)


def moves_of(mask):
    return [j for j in JUMPS if mask & bit(j[0]) and mask & bit(j[1]) and not mask & bit(j[2])]


def jump(mask, j):
    return mask & ~bit(j[0]) & ~bit(j[1]) | bit(j[2])


def solvable(mask, goal):
    key = (mask, goal)
    if key not in SOLVABLE:
        if bin(mask).count("1") <= goal:
            SOLVABLE[key] = True
        else:
            SOLVABLE[key] = any(solvable(jump(mask, j), goal) for j in moves_of(mask))
    return SOLVABLE[key]


class PegTriangle:
    def __init__(self, goal_pegs=1):
        self.goal_pegs = goal_pegs
        self.mask = 0
        self.history = []
        self.turns = 0
        self.done = False
        self.order = []
        self.start_hole = 1

    def reset(self, rng, options):
        full = (1 << len(HOLES)) - 1
        starts = [k for k in range(1, len(HOLES) + 1) if solvable(full & ~bit(k), self.goal_pegs)]
        self.start_hole = rng.choice(starts)
        self.mask = full & ~bit(self.start_hole)
        self.history = []
        self.turns = 0
        self.done = False
        self.order = list(range(len(JUMPS)))
        rng.shuffle(self.order)
        return self.observation(f"New board: hole {self.start_hole} is empty."), {"pegs": self.pegs()}

    def pegs(self):
        return bin(self.mask).count("1")

    def render(self):
        lines = []
        for r in range(ROWS):
            cells = []
            for c in range(r + 1):
                k = NUMBER[(r, c)]
                cells.append(f"{k:>2}{'*' if self.mask & bit(k) else '.'}")
            lines.append("  " * (ROWS - 1 - r) + "  ".join(cells))
        return "\n".join(lines)

    def observation(self, note):
        return (f"{note}\nBoard (hole number, * = peg, . = empty):\n{self.render()}\n"
                f"Pegs left: {self.pegs()}; goal: finish with at most {self.goal_pegs}. Turns left: "
                f"{ENV_SPEC['max_turns'] - self.turns}.\nReply 'FROM TO' (e.g. '4 1' jumps the peg in 4 over 2 into "
                f"1) or 'undo'.")

    def step(self, action):
        if self.done:
            return "The puzzle is over.", 0.0, True, False, {"success": False}
        self.turns += 1
        out = self.turns >= ENV_SPEC["max_turns"]
        if move_tokens(action, 40) == ["undo"]:
            if not self.history:
                self.done = out
                return (self.observation("Nothing to undo."), 0.0, False, out,
                        {"action_is_valid": False, "success": False})
            self.mask = self.history.pop()
            self.done = out
            return self.observation("Last jump taken back."), 0.0, False, out, {"success": False,
                                                                                "pegs": self.pegs()}
        numbers = move_integers(action, 40)
        if len(numbers) == 3:
            numbers = [numbers[0], numbers[2]]  # 'from over to' is accepted too
        if len(numbers) != 2 or not all(1 <= k <= len(HOLES) for k in numbers):
            self.done = out
            return (self.observation(f"Could not read {safe_echo(action)!r}: reply with two hole numbers 1-15 "
                                     f"(from, to) or 'undo'."), 0.0, False, out,
                    {"format_error": "expected 'FROM TO' hole numbers or 'undo'", "success": False})
        src, dst = numbers
        found = [j for j in moves_of(self.mask) if j[0] == src and j[2] == dst]
        if not found:
            self.done = out
            why = "there is no peg there" if not self.mask & bit(src) else (
                "the target hole is not empty" if self.mask & bit(dst) else
                "it is not a jump over an adjacent peg in a straight line")
            return (self.observation(f"{src} to {dst} is not a legal jump: {why}."), 0.0, False, out,
                    {"action_is_valid": False, "success": False})
        self.history.append(self.mask)
        self.mask = jump(self.mask, found[0])
        if self.pegs() <= self.goal_pegs:
            self.done = True
            return f"Jumped {src} over {found[0][1]} into {dst}. {self.pegs()} peg(s) left: solved!", 1.0, True, \
                False, {"success": True, "pegs": self.pegs()}
        stuck = not moves_of(self.mask)
        self.done = out
        note = f"Jumped {src} over {found[0][1]} into {dst}."
        if stuck:
            note += " No jumps are left: undo to try another line."
        return self.observation(note), 0.0, False, out, {"success": False, "pegs": self.pegs()}

    def privileged_hint(self):
        if solvable(self.mask, self.goal_pegs):
            return (f"The position can still be finished with {self.pegs() - self.goal_pegs} more jumps. Pegs "
                    f"stranded in corners or cut off from the others are the usual cause of dead ends: clear the "
                    f"edges while there are still pegs to jump over them.")
        return "This position can no longer reach the goal: undo jumps until it can."

    def reference_action(self):
        for k in self.order:
            j = JUMPS[k]
            if j in moves_of(self.mask) and solvable(jump(self.mask, j), self.goal_pegs):
                return f"{j[0]} {j[2]}"
        return "undo"
